/**
 * Group commit (docs/spec.md §13.2 "Write-ahead"): when a write-ahead record counts as durable under
 * `journal.sync` batch, every and off, on a file whose syncs the test completes by hand and a timer the
 * test moves.
 */
import { describe, expect, it } from 'vitest';
import { GroupCommit, type SyncMode } from '../../src/journal/index.ts';

class HeldSyncs {
  blocking = 0;
  fails = false;
  readonly pending: { resolve: () => void; reject: (err: Error) => void }[] = [];

  sync(): void {
    this.blocking += 1;
    if (this.fails) throw new Error('EIO: i/o error, fdatasync');
  }

  syncLater(): Promise<void> {
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }

  /** Completes the oldest sync in flight (or fails it). */
  async finish(fail = false): Promise<void> {
    const next = this.pending.shift();
    if (next === undefined) throw new Error('no sync in flight');
    if (fail) next.reject(new Error('EIO: i/o error, fdatasync'));
    else next.resolve();
    await flush();
  }
}

class ManualTime {
  nowMs = 0;
  readonly timers: { atMs: number; run: () => void }[] = [];

  later(ms: number, run: () => void): void {
    this.timers.push({ atMs: this.nowMs + ms, run });
  }

  /** Moves time to `ms` and runs the timers due by then. */
  async to(ms: number): Promise<void> {
    this.nowMs = ms;
    for (;;) {
      const due = this.timers.findIndex((t) => t.atMs <= ms);
      if (due < 0) break;
      const [timer] = this.timers.splice(due, 1);
      timer?.run();
    }
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

function setUp(sync: SyncMode, batchMs = 10) {
  const file = new HeldSyncs();
  const time = new ManualTime();
  const told: string[] = [];
  const commit = new GroupCommit(
    { sync, batchMs },
    { file, later: (ms, run) => time.later(ms, run) },
    { failed: (err) => told.push(`failed ${String(err)}`), recovered: () => told.push('recovered') },
  );
  return { file, time, told, commit };
}

function tracked(p: Promise<void>): { done: boolean } {
  const state = { done: false };
  void p.then(() => (state.done = true));
  return state;
}

describe('GroupCommit', () => {
  it('off: a record is acknowledged at once and nothing is synced', async () => {
    const { file, commit } = setUp('off');
    commit.appended();
    const ack = tracked(commit.durable());
    await flush();
    expect(ack.done).toBe(true);
    expect(file.blocking + file.pending.length).toBe(0);
  });

  it('every: each record is synced before the next is written, and acknowledged at once', async () => {
    const { file, commit } = setUp('every');
    commit.appended();
    commit.appended();
    expect(file.blocking).toBe(2);
    const ack = tracked(commit.durable());
    await flush();
    expect(ack.done).toBe(true);
  });

  it('batch: an acknowledgement starts a sync at once, which covers every record appended before it', async () => {
    const { file, commit } = setUp('batch');
    commit.appended();
    commit.appended();
    const ack = tracked(commit.durable());
    expect(file.pending).toHaveLength(1);
    await flush();
    expect(ack.done).toBe(false);
    await file.finish();
    expect(ack.done).toBe(true);
    expect(file.blocking).toBe(0);
  });

  it('batch: those who come while a sync runs share the next one, started as soon as it ends', async () => {
    const { file, commit } = setUp('batch');
    commit.appended();
    const early = tracked(commit.durable());
    commit.appended();
    const second = tracked(commit.durable());
    commit.appended();
    const third = tracked(commit.durable());
    // One sync runs; the two who came meanwhile are not covered by it, and start no sync of their own.
    expect(file.pending).toHaveLength(1);
    await file.finish();
    expect(early.done).toBe(true);
    expect(second.done || third.done).toBe(false);
    expect(file.pending).toHaveLength(1);
    await file.finish();
    expect(second.done && third.done).toBe(true);
    expect(file.pending).toHaveLength(0);
  });

  it('batch: records nobody waits for are synced batchMs after they were written', async () => {
    const { file, time, commit } = setUp('batch', 10);
    commit.appended();
    await time.to(9);
    expect(file.pending).toHaveLength(0);
    await time.to(10);
    expect(file.pending).toHaveLength(1);
    await file.finish();
    commit.appended();
    await time.to(15);
    expect(file.pending).toHaveLength(0);
    await time.to(20);
    expect(file.pending).toHaveLength(1);
  });

  it('batch: one timer at a time, and a timer that fires during a sync or after it covered all starts none', async () => {
    const { file, time, commit } = setUp('batch', 10);
    commit.appended();
    commit.appended();
    expect(time.timers).toHaveLength(1);
    const ack = tracked(commit.durable());
    expect(file.pending).toHaveLength(1);
    // The timer comes due while the sync it would have started is already running.
    await time.to(10);
    expect(file.pending).toHaveLength(1);
    await file.finish();
    expect(ack.done).toBe(true);
    // All is synced: no timer is left, and a late one would find nothing to do.
    expect(time.timers).toHaveLength(0);
    commit.appended();
    const second = tracked(commit.durable());
    await file.finish();
    expect(second.done).toBe(true);
    await time.to(20);
    expect(file.pending).toHaveLength(0);
  });

  it('batch: a record written during a sync, after the timer fired, is synced batchMs after that sync ends', async () => {
    const { file, time, commit } = setUp('batch', 10);
    commit.appended();
    const ack = tracked(commit.durable());
    commit.appended();
    await time.to(10);
    expect(file.pending).toHaveLength(1);
    await file.finish();
    expect(ack.done).toBe(true);
    // Nobody waits for the second record: its sync is not started at once, but batchMs later.
    expect(file.pending).toHaveLength(0);
    expect(time.timers).toEqual([{ atMs: 20, run: expect.any(Function) }]);
    await time.to(20);
    expect(file.pending).toHaveLength(1);
    await file.finish();
    expect(time.timers).toHaveLength(0);
    expect(file.pending).toHaveLength(0);
  });

  it('batch: nothing waits when everything appended is already synced', async () => {
    const { file, commit } = setUp('batch');
    commit.appended();
    const ack = tracked(commit.durable());
    await file.finish();
    expect(ack.done).toBe(true);
    const again = tracked(commit.durable());
    await flush();
    expect(again.done).toBe(true);
    expect(file.pending).toHaveLength(0);
  });

  it('a failed sync lets the waiters go, is told once, fails until a retry succeeds', async () => {
    const { file, told, commit } = setUp('batch');
    commit.appended();
    const ack = tracked(commit.durable());
    await file.finish(true);
    expect(ack.done).toBe(true);
    expect(commit.failing).toBe(true);
    file.fails = true;
    expect(commit.retry()).toBe(false);
    expect(told).toEqual(['failed Error: EIO: i/o error, fdatasync']);
    file.fails = false;
    expect(commit.retry()).toBe(true);
    expect(commit.failing).toBe(false);
    expect(told).toEqual(['failed Error: EIO: i/o error, fdatasync', 'recovered']);
  });

  it('every: a failed sync is an outcome, not a throw', () => {
    const { file, told, commit } = setUp('every');
    file.fails = true;
    expect(() => commit.appended()).not.toThrow();
    expect(commit.failing).toBe(true);
    expect(told).toHaveLength(1);
  });

  it('close syncs what is left, blocking, and lets every waiter go', async () => {
    const { file, commit } = setUp('batch');
    commit.appended();
    const ack = tracked(commit.durable());
    commit.close();
    await flush();
    expect(file.blocking).toBe(1);
    expect(ack.done).toBe(true);
  });

  it('off: close does not sync', () => {
    const { file, commit } = setUp('off');
    commit.appended();
    commit.close();
    expect(file.blocking).toBe(0);
  });

  it('a retry when nothing failed syncs nothing and says all is well', () => {
    const { file, told, commit } = setUp('batch');
    commit.appended();
    expect(commit.retry()).toBe(true);
    expect(file.blocking).toBe(0);
    expect(told).toEqual([]);
  });

  it('flush syncs what was appended since the last sync, blocking, and nothing when it is all synced or off', () => {
    const { file, commit } = setUp('batch');
    commit.flush();
    expect(file.blocking).toBe(0);
    commit.appended();
    commit.flush();
    expect(file.blocking).toBe(1);
    commit.flush();
    expect(file.blocking).toBe(1);
    const off = setUp('off');
    off.commit.appended();
    off.commit.flush();
    expect(off.file.blocking).toBe(0);
  });

  it('a second close does nothing, and after close neither flush nor a waiter syncs', async () => {
    const { file, commit } = setUp('batch');
    commit.appended();
    commit.close();
    commit.close();
    expect(file.blocking).toBe(1);
    commit.appended();
    commit.flush();
    expect(file.blocking).toBe(1);
    const ack = tracked(commit.durable());
    await flush();
    expect(ack.done).toBe(true);
    expect(file.pending).toEqual([]);
  });
});
