/**
 * Task ids unique for a data directory, across restarts (docs/spec.md §13.1a, "ids are never
 * reused"): `http-<n>`, `terminal-<n>`, `timer-<n>` share one counter that goes on from run to run, so
 * a lookup after a restart never finds another client's task under an id it was given before.
 *
 * Theory of operation. The counter file (`<dataDir>/task-ids.json`, `{"next": N}`) holds a number no
 * id has reached yet. Ids are handed out below it; before the first one at or above it is, the file is
 * moved ID_BLOCK further on, written atomically (a temporary file, fsync, rename, fsync of the
 * directory). A run that dies loses the rest of its block: those numbers are skipped, never reused. A
 * clean shutdown writes the exact next number, so a restart after one leaves no gap. Moving the file
 * on can fail (a full disk); then no id is handed out (`ready()` is false) until it can.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Ids reserved at a time: one write of the counter file per this many tasks. */
export const ID_BLOCK = 1000;
export const TASK_IDS_FILE = 'task-ids.json';

/** Where the counter lives: the file in the data directory, or a twin in tests. */
export interface CounterStore {
  readonly path: string;
  /** The stored text, or null when there is none yet. */
  read(): string | null;
  /** Replaces the stored text durably and atomically; throws when it cannot. */
  write(text: string): void;
}

export class TaskIds {
  private nextNumber: number;
  /** Ids below this are reserved in the store. */
  private reservedBelow: number;
  private failure: string | null = null;

  /** Reads the counter; throws with a message naming the file when it is unreadable or not a counter. */
  constructor(private readonly store: CounterStore) {
    const text = store.read();
    this.nextNumber = text === null ? 1 : parseCounter(text, store.path);
    this.reservedBelow = this.nextNumber;
  }

  /** The counter of the data directory `dataDir`. */
  static open(dataDir: string): TaskIds {
    return new TaskIds(fileStore(join(dataDir, TASK_IDS_FILE)));
  }

  /** Whether an id can be handed out now: reserves another block when needed. */
  ready(): boolean {
    if (this.nextNumber < this.reservedBelow) return true;
    try {
      this.store.write(counterText(this.nextNumber + ID_BLOCK));
      this.reservedBelow = this.nextNumber + ID_BLOCK;
      this.failure = null;
      return true;
    } catch (err) {
      this.failure = `cannot write ${this.store.path}: ${err instanceof Error ? err.message : String(err)}`;
      return false;
    }
  }

  /** Why the last reservation failed, or null. */
  get problem(): string | null {
    return this.failure;
  }

  /** The next id, `<prefix>-<n>`. Callers ask `ready()` first; an id that cannot be reserved is a bug. */
  next(prefix: string): string {
    if (!this.ready()) throw new Error(`TASK IDS: no id can be reserved (${this.failure ?? ''}); ask ready() first`);
    const n = this.nextNumber;
    this.nextNumber += 1;
    return `${prefix}-${n}`;
  }

  /** On a clean shutdown: stores the exact next number, so the next start leaves no gap. Never throws. */
  close(): void {
    if (this.nextNumber === this.reservedBelow) return;
    try {
      this.store.write(counterText(this.nextNumber));
      this.reservedBelow = this.nextNumber;
    } catch {
      // The reserved block stays stored: the next start skips its rest, which is all that is lost.
    }
  }
}

function counterText(next: number): string {
  return `${JSON.stringify({ next })}\n`;
}

function parseCounter(text: string, path: string): number {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const next = typeof value === 'object' && value !== null ? (value as { next?: unknown }).next : undefined;
  if (typeof next === 'number' && Number.isSafeInteger(next) && next >= 1) return next;
  throw new Error(
    `${path} is not a task id counter (expected {"next": <n ≥ 1>}); it is serve's own file: restore it, or ` +
      'remove it to number from 1 again (ids of earlier runs may then be given again)',
  );
}

/** The counter as a file: read whole, replaced atomically and durably. */
export function fileStore(path: string): CounterStore {
  return {
    path,
    read: () => {
      try {
        return readFileSync(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new Error(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    write: (text) => {
      const dir = dirname(path);
      mkdirSync(dir, { recursive: true });
      const temporary = `${path}.tmp`;
      const fd = openSync(temporary, 'w');
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, path);
      const dirFd = openSync(dir, 'r');
      try {
        fsyncSync(dirFd);
      } finally {
        closeSync(dirFd);
      }
    },
  };
}
