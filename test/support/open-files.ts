import { readdirSync, readlinkSync } from 'node:fs';

/** The files under `dir` this process holds open (Linux: /proc/self/fd), for tests of what is let go. */
export function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });
}
