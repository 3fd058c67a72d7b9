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
 *
 * The kernel numbers the tasks it creates itself (`root:<n>`, `<resident>:<n>`) with counters of its
 * own, which start at a base it is given (`kernelTaskSeqBase`). The file's `kernelNext` is that base
 * for the next run: a start reserves KERNEL_BLOCK above it, and serve reports every kernel task id it
 * sees (`kernelTaskSeen`, from the trace, in the reaction that made it), which moves the reservation
 * on before the block runs out. A clean shutdown stores one past the highest id seen.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Ids reserved at a time: one write of the counter file per this many tasks. */
export const ID_BLOCK = 1000;
/** Kernel task numbers reserved at a time. */
export const KERNEL_BLOCK = 1000;
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
  /** The kernel's task numbers of this run count from here + 1. */
  readonly kernelBase: number;
  /** The highest kernel task number seen this run (`kernelBase` before the first). */
  private kernelHighest: number;
  /** Kernel task numbers below this are reserved in the store. */
  private kernelReservedBelow: number;
  private failure: string | null = null;

  /** Reads the counter; throws with a message naming the file when it is unreadable or not a counter. */
  constructor(private readonly store: CounterStore) {
    const text = store.read();
    const counter = text === null ? { next: 1, kernelNext: 0 } : parseCounter(text, store.path);
    this.nextNumber = counter.next;
    this.reservedBelow = this.nextNumber;
    this.kernelBase = counter.kernelNext;
    this.kernelHighest = counter.kernelNext;
    this.kernelReservedBelow = counter.kernelNext;
  }

  /** The counter of the data directory `dataDir`. */
  static open(dataDir: string): TaskIds {
    return new TaskIds(fileStore(join(dataDir, TASK_IDS_FILE)));
  }

  /**
   * Whether an id can be handed out now: reserves another block when needed, and the kernel's next
   * block when its numbers come near the end of the reserved one.
   */
  ready(): boolean {
    const kernelShort = this.kernelHighest + KERNEL_BLOCK / 2 >= this.kernelReservedBelow;
    if (this.nextNumber < this.reservedBelow && !kernelShort) return true;
    const reservedBelow = Math.max(this.reservedBelow, this.nextNumber + ID_BLOCK);
    const kernelReservedBelow = kernelShort ? this.kernelHighest + KERNEL_BLOCK : this.kernelReservedBelow;
    try {
      this.store.write(counterText(reservedBelow, kernelReservedBelow));
      this.reservedBelow = reservedBelow;
      this.kernelReservedBelow = kernelReservedBelow;
      this.failure = null;
      return true;
    } catch (err) {
      this.failure = `cannot write ${this.store.path}: ${err instanceof Error ? err.message : String(err)}`;
      return false;
    }
  }

  /**
   * The kernel created task `id`. A number at or past the reserved block moves the reservation on at
   * once; a failure to write it is remembered and refuses new inputs through `ready()` until it works.
   */
  kernelTaskSeen(id: string): void {
    const m = /:(\d+)$/.exec(id);
    if (m?.[1] === undefined) return;
    this.kernelHighest = Math.max(this.kernelHighest, Number(m[1]));
    if (this.kernelHighest + KERNEL_BLOCK / 2 >= this.kernelReservedBelow) this.ready();
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
    const kernelNext = this.kernelHighest;
    if (this.nextNumber === this.reservedBelow && kernelNext === this.kernelReservedBelow) return;
    try {
      this.store.write(counterText(this.nextNumber, kernelNext));
      this.reservedBelow = this.nextNumber;
      this.kernelReservedBelow = kernelNext;
    } catch {
      // The reserved block stays stored: the next start skips its rest, which is all that is lost.
    }
  }
}

function counterText(next: number, kernelNext: number): string {
  return `${JSON.stringify({ next, kernelNext })}\n`;
}

/** `{"next": n ≥ 1, "kernelNext"?: n ≥ 0}`; a file from before `kernelNext` existed reads it as 0. */
function parseCounter(text: string, path: string): { next: number; kernelNext: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const fields = typeof value === 'object' && value !== null ? (value as { next?: unknown; kernelNext?: unknown }) : {};
  const { next, kernelNext = 0 } = fields;
  const whole = (n: unknown, min: number): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= min;
  if (whole(next, 1) && whole(kernelNext, 0)) return { next, kernelNext };
  throw new Error(
    `${path} is not a task id counter (expected {"next": <n ≥ 1>, "kernelNext": <n ≥ 0>}); it is serve's own file: restore it, or ` +
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
