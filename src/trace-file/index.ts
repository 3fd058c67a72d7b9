/**
 * The trace file: what the simulator and `serve` write alike, and the view and replay read. One
 * concept a file:
 *  - canonical-line.ts  the canonical JSON line of an event and its checking twin;
 *  - hasher.ts          the TraceSink that hashes the lines into the run's fingerprint;
 *  - sha256.ts          SHA-256 whose running state can be saved (a durable server's snapshots);
 *  - writer.ts          the trace file: the header line, then the event lines, buffered;
 *  - output-file.ts     the OutputFile port the trace and journal writers write through;
 *  - human-line.ts      the dense one-line-per-event form of logs, reports and the view.
 */
export { canonicalLine, strictCanonicalLine } from './canonical-line.ts';
export { TraceHasher, type HashChainLink, type TraceHasherOptions, type TraceHashState } from './hasher.ts';
export { formatTraceLine } from './human-line.ts';
export { cutTornTail, openOutputFile, type OpenMode, type OutputFile } from './output-file.ts';
export type { TraceHeader } from './writer.ts';
