/**
 * When a write-ahead record is durable (docs/spec.md §13.2 "Write-ahead"): a submission is acknowledged
 * only once the record of its input would survive a crash of the machine, under `journal.sync`:
 *
 *   batch  group commit: one fdatasync, off the event loop, covers every record appended before it
 *          started. An acknowledgement that waits starts one at once, unless one is running: then it
 *          waits for the next, started as soon as the running one ends, which serves everyone who
 *          came meanwhile — so under load a sync covers many acknowledgements, and alone a record
 *          waits for one sync only. A record nobody waits for is synced at most `batchMs` after it
 *          was written;
 *   every  an fdatasync after each record, before the next one is written (the event loop waits);
 *   off    no sync: a record is in the operating system's cache once written, which survives a crash
 *          of the process but not of the machine.
 *
 * A sync that fails (EIO, a device gone) is an outcome, not a crash (§13.1a): whoever waited is let go —
 * the records are written, only their durability is in doubt — the failure is told once, and `failing`
 * holds until a sync succeeds again (`retry`), so that the server refuses new inputs meanwhile.
 */
import type { OutputFile } from '../trace-file/index.ts';

export const SYNC_MODES = ['batch', 'every', 'off'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface SyncPolicy {
  readonly sync: SyncMode;
  /** The longest a record nobody waits for goes unsynced (`batch`). */
  readonly batchMs: number;
}

export const DEFAULT_SYNC_POLICY: SyncPolicy = Object.freeze({ sync: 'batch', batchMs: 10 });

export interface SyncEvents {
  /** The first sync that failed, with its error; later failures of the same outage are not told. */
  failed(error: unknown): void;
  /** A sync succeeded after failures. */
  recovered(): void;
}

/** What group commit needs of a file, and of time (a one-shot timer). */
export interface CommitPorts {
  readonly file: Pick<OutputFile, 'sync' | 'syncLater'>;
  later(ms: number, run: () => void): void;
}

interface Waiter {
  /** The number of records appended when it began to wait. */
  readonly upTo: number;
  readonly resolve: () => void;
}

export class GroupCommit {
  /** Records appended so far. */
  private appends = 0;
  /** Records known durable. */
  private synced = 0;
  private waiters: Waiter[] = [];
  private syncing = false;
  private scheduled = false;
  private outage = false;
  private closed = false;

  constructor(
    private readonly policy: SyncPolicy,
    private readonly ports: CommitPorts,
    private readonly events: SyncEvents,
  ) {}

  /** A sync failed and none has succeeded since. */
  get failing(): boolean {
    return this.outage;
  }

  /** Called after each whole record is appended. */
  appended(): void {
    this.appends += 1;
    switch (this.policy.sync) {
      case 'every':
        this.syncNow();
        return;
      case 'batch':
        // A record nobody waits for is synced within batchMs all the same.
        this.later();
        return;
      // Stryker disable next-line ConditionalExpression: equivalent, a mode no case takes does nothing, as `off` does
      case 'off':
        return;
    }
  }

  /** Settles once every record appended so far is durable (at once under `off`, or while failing). */
  durable(): Promise<void> {
    if (this.policy.sync !== 'batch' || this.synced >= this.appends || this.outage || this.closed)
      return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ upTo: this.appends, resolve });
      if (!this.syncing) this.start();
    });
  }

  /** When failing: one blocking sync; true once syncs succeed again. */
  retry(): boolean {
    if (!this.outage) return true;
    this.syncNow();
    return !this.outage;
  }

  /** A blocking sync of everything appended so far, unless `off` (before a snapshot that covers it). */
  flush(): void {
    if (this.policy.sync !== 'off' && this.synced < this.appends && !this.closed) this.syncNow();
  }

  /** A last blocking sync of everything appended (a clean shutdown); waiters are let go. */
  close(): void {
    if (this.closed) return;
    if (this.policy.sync !== 'off' && this.synced < this.appends) this.syncNow();
    this.closed = true;
    this.release(this.appends);
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private syncNow(): void {
    const upTo = this.appends;
    try {
      this.ports.file.sync();
      this.succeeded(upTo);
    } catch (err) {
      this.fail(err);
    }
  }

  /** A sync batchMs from now, for records nobody waits for (one timer at a time). */
  private later(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    this.ports.later(this.policy.batchMs, () => {
      this.scheduled = false;
      if (!this.syncing) this.start();
    });
  }

  private start(): void {
    if (this.closed || this.synced >= this.appends) return;
    const upTo = this.appends;
    this.syncing = true;
    this.ports.file.syncLater().then(
      () => {
        this.syncing = false;
        this.succeeded(upTo);
        // Those who came while it ran are served by the next one, at once; the rest within batchMs.
        if (this.waiters.length > 0) this.start();
        else if (this.synced < this.appends) this.later();
      },
      (err: unknown) => {
        this.syncing = false;
        this.fail(err);
      },
    );
  }

  private succeeded(upTo: number): void {
    this.synced = Math.max(this.synced, upTo);
    if (this.outage) {
      this.outage = false;
      this.events.recovered();
    }
    this.release(this.synced);
  }

  private release(upTo: number): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.upTo <= upTo) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  private fail(err: unknown): void {
    if (!this.outage) {
      this.outage = true;
      this.events.failed(err);
    }
    // The records are written (the operating system has them); only their durability is in doubt.
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }
}
