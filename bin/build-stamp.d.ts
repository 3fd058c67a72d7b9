// Types of build-stamp.js, for the TypeScript that imports it (tests).
export declare function sourceFingerprint(root: string): string;
export declare function writeStamp(root: string, fingerprint: string): void;
export declare function stampPath(root: string): string;
export declare function isBuildCurrent(root: string): boolean;
