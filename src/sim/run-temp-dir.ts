/**
 * The temporary directory of a simulated run, which holds the root's main graph memory (docs/spec.md §12.2.1:
 * an empty SQLite file per run, deleted when the run ends).
 *
 * The name carries the process id. A run deletes its directory when it ends, but a process stopped by
 * a signal, or whose run failed while closing, never reaches that point — nor do the runs on its sweep
 * workers, which are threads of the same process. The id lets the process find and delete every
 * directory it made without a registry shared between threads.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'homeagent-sim-';

function processPrefix(): string {
  return `${PREFIX}${process.pid}-`;
}

export function createRunTempDir(): string {
  return mkdtempSync(join(tmpdir(), processPrefix()));
}

/** Deletes every run directory of this process (all threads) that still exists; returns how many. */
export function removeRunTempDirsOfThisProcess(): number {
  const dir = tmpdir();
  const prefix = processPrefix();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // no temp directory to look in: nothing of ours is there
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
