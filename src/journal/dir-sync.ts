/**
 * Makes a directory's entries durable — a file created, renamed or deleted — as a file's sync makes its
 * bytes durable (docs/spec.md §13.2). A file system that cannot sync a directory has nothing more to do.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function syncDirectory(path: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort: the entries are in the file system's cache, which a crash of the process does not lose.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
