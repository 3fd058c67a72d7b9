import { describe, it, expect } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import {
  Scheduler,
  type SchedulerDump,
  type StackEntryView,
  type TaskView,
} from '../../../src/kernel/scheduler/core.ts';
import { setup, placesOf, type Harness } from './harness.ts';

/** A fixed linear congruential generator: the sequence below is the same on every run. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** Ids submitted and not yet terminal, according to the trace alone. */
function unfinishedFromTrace(h: Harness): Set<string> {
  const open = new Set<string>();
  for (const e of h.rec.events) {
    if (e.type === 'task.submitted') open.add(e.task);
    else if (e.type === 'task.terminal') open.delete(e.task);
  }
  return open;
}

/** O1: the dump's sets are disjoint and hold exactly the unfinished tasks. */
function expectAccounted(d: SchedulerDump, unfinished: Set<string>, where: string): void {
  const places = placesOf(d);
  const held = places.map((p) => p.id);
  expect(new Set(held).size, `${where}: a task is held twice: ${JSON.stringify(places)}`).toBe(held.length);
  expect([...held].sort(), where).toEqual([...unfinished].sort());
}

const STEPS = ['Prepare', 'Model', 'ToolBegin', 'ToolExec', 'ToolAfter', 'TurnEnd'] as const;

describe('Scheduler observability (docs/spec.md §7)', () => {
  it('O1 at every step boundary the dump sets are disjoint and account for every unfinished task', () => {
    const h = setup({ maxQueue: 5, cooldownMs: 1500 });
    const rnd = lcg(20240611);
    const choose = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    let t = 0;
    let next = 0;
    let timerAtMs: number | null = null;
    let safePoints = 0;
    let maxDepth = 0;

    for (let op = 0; op < 3000; op += 1) {
      t += choose([0, 0, 0, 50, 400, 1200]);
      const d = h.s.dump();
      const r = rnd();
      if (timerAtMs !== null && t >= timerAtMs && r < 0.5) {
        timerAtMs = null;
        h.s.cooldownTimerFired(t);
      } else if (r < 0.2) {
        h.s.submitQueued(`q${(next += 1)}`, t);
      } else if (r < 0.45) {
        h.s.submitInterrupt(`i${(next += 1)}`, choose([1, 1, 2, 2, 3, 4]), t);
      } else if (d.running === null) {
        h.pick(t);
      } else if (r < 0.8) {
        h.s.safePoint(t, choose(STEPS));
        safePoints += 1;
        expectAccounted(h.s.dump(), unfinishedFromTrace(h), `safe point ${safePoints} (op ${op}, t=${t})`);
      } else if (r < 0.9) {
        if (d.critical) h.s.leaveCritical(t);
        else h.s.enterCritical(t);
      } else {
        h.finish(t);
      }
      for (const effect of h.s.takeEffects()) timerAtMs = effect.type === 'timer.set' ? effect.atMs : null;
      expect(h.s.dump().cooldownTimerAtMs).toBe(timerAtMs);
      maxDepth = Math.max(maxDepth, h.s.dump().stack.length);
      expectAccounted(h.s.dump(), unfinishedFromTrace(h), `op ${op} (t=${t})`);
    }

    // The sequence really exercised the interesting paths.
    const c = h.s.dump().counters;
    expect(safePoints).toBeGreaterThan(300);
    expect(c.suspended).toBeGreaterThan(20);
    expect(c.resumed).toBeGreaterThan(10);
    expect(c.dropped).toBeGreaterThan(0);
    expect(c.backpressure).toBeGreaterThan(0);
    expect(maxDepth).toBeGreaterThanOrEqual(3);
    expect(h.events('preempt.deferred').some((e) => e.reason === 'cooldown')).toBe(true);
    expect(h.events('preempt.deferred').some((e) => e.reason === 'critical')).toBe(true);
    expect(h.events('preempt.armed').some((e) => e.reason === 'cooldown_end')).toBe(true);
  });

  it('O1 dump() is a deep copy: mutating it does not change the scheduler', () => {
    const h = setup();
    h.start('q', null, 0);
    h.preempt('i1', 1, 1);
    h.s.submitQueued('q2', 2);
    h.s.submitInterrupt('i2', 1, 2);
    const before = h.s.dump();
    const snapshot = JSON.stringify(before);

    const mutable = h.s.dump();
    mutable.counters.enqueued = 999;
    mutable.counters.interruptsByLevel[1] = 999;
    (mutable.queue as TaskView[]).length = 0;
    (mutable.levelQueues[1] as TaskView[]).push({ ...(mutable.levelQueues[1][0] as TaskView), id: 'ghost' });
    (mutable.stack as StackEntryView[]).pop();
    (before.running as { id: string }).id = 'renamed';
    (before.stack[0]?.task as { preemptCount: number }).preemptCount = 42;

    const after = h.s.dump();
    expect(JSON.stringify(after)).toBe(snapshot);
    expect(after.running?.id).toBe('i1');
    expect(after.stack[0]?.task.preemptCount).toBe(1);
    h.finish(3);
    expect(h.pick(3)).toEqual({ id: 'i2', from: 'level' });
  });
});

describe('Scheduler assertions name the broken rule', () => {
  const fresh = (): Scheduler => new Scheduler('root', { verify: true });
  const running = (): Scheduler => {
    const s = fresh();
    s.submitQueued('r', 0);
    s.pick(0);
    return s;
  };

  it('LEVEL: an interrupt level outside 1..4 is refused (0, 5, 2.5)', () => {
    for (const level of [0, 5, 2.5, -1, Number.NaN]) {
      const s = fresh();
      expect(() => s.submitInterrupt('x', level, 0)).toThrow(AssertionError);
      expect(() => s.submitInterrupt('x', level, 0)).toThrow(/LEVEL/);
      expect(s.pendingCount()).toBe(0);
    }
  });

  it('I1: finishing a task when nothing runs', () => {
    expect(() => fresh().finishRunning({ kind: 'done' }, 0)).toThrow(/I1/);
  });

  it('I1: pick while a task is running', () => {
    const s = running();
    expect(() => s.pick(1)).toThrow(/I1/);
  });

  it('I1: a safe point with nothing running', () => {
    expect(() => fresh().safePoint(0, 'Model')).toThrow(/I1/);
  });

  it('ID: a duplicate live task id is refused, for either class', () => {
    const s = fresh();
    s.submitQueued('a', 0);
    expect(() => s.submitQueued('a', 1)).toThrow(/ID/);
    expect(() => s.submitInterrupt('a', 2, 1)).toThrow(/ID/);
    expect(() => s.refuse('a', 'queued', null, 'duplicate', 1)).toThrow(/ID/);
  });

  it('TIME: time going backwards', () => {
    const s = fresh();
    s.submitQueued('a', 100);
    expect(() => s.submitQueued('b', 99)).toThrow(/TIME/);
    expect(() => s.pick(50)).toThrow(/TIME/);
  });

  it('CRITICAL: entering a critical section twice', () => {
    const s = running();
    s.enterCritical(1);
    expect(() => s.enterCritical(2)).toThrow(/CRITICAL/);
  });

  it('CRITICAL: leaving a critical section that was not entered', () => {
    const s = running();
    expect(() => s.leaveCritical(1)).toThrow(/CRITICAL/);
  });

  it('TIMER: cooldownTimerFired with no timer pending', () => {
    expect(() => fresh().cooldownTimerFired(0)).toThrow(/TIMER/);
    expect(() => running().cooldownTimerFired(5)).toThrow(/TIMER/);
  });
});

describe('Scheduler stop (docs/spec.md §2.9 step 1, §10.2a)', () => {
  it('stopQueued ends only the queued FIFO and leaves nothing armed; interrupts and the stack are untouched', () => {
    const h = setup();
    h.start('q0', null, 0);
    h.preempt('i1', 1, 1); // q0 suspended
    h.s.submitQueued('q1', 2);
    h.s.submitQueued('q2', 2);
    h.s.submitInterrupt('w1', 1, 2); // equal level: waits in L1
    expect(h.s.submitInterrupt('x3', 3, 3)).toMatchObject({ kind: 'admitted', armed: true });

    const cancelled = h.s.stopQueued({ kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' }, 4);
    expect(cancelled).toEqual(['q1', 'q2']);
    for (const id of cancelled)
      expect(h.terminalOf(id)).toMatchObject({ t: 4, kind: 'cancelled', reason: 'user_stop' });
    const d = h.s.dump();
    expect(d.queue).toHaveLength(0);
    expect(d.armed).toBeNull();
    expect(d.immediate?.id).toBe('x3');
    expect(d.levelQueues[1].map((v) => v.id)).toEqual(['w1']);
    expect(d.stack.map((e) => e.task.id)).toEqual(['q0']);
    expect(d.running?.id).toBe('i1');
  });

  it('stopAll ends every pending and suspended task, clears the cooldown timer, and leaves the scheduler empty', () => {
    const h = setup();
    h.start('q0', null, 0);
    h.preempt('i1', 1, 10);
    h.preempt('i3', 3, 20);
    h.finish(30);
    expect(h.pick(30)).toEqual({ id: 'i1', from: 'stack' }); // i1 in cooldown until 2020; q0 still suspended
    expect(h.s.submitInterrupt('c3', 3, 40)).toMatchObject({ kind: 'admitted', armed: false });
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.set', atMs: 2020 }]);
    h.s.submitQueued('q1', 40);
    expect(placesOf(h.s.dump())).toEqual([
      { id: 'i1', place: 'running' },
      { id: 'c3', place: 'L3' },
      { id: 'q1', place: 'queue' },
      { id: 'q0', place: 'stack' },
    ]);

    const ended = h.s.stopAll({ kind: 'skipped', reason: 'agent_stopped', reply: '' }, 50);
    expect([...ended].sort()).toEqual(['c3', 'i1', 'q0', 'q1']);
    for (const id of ended) expect(h.terminalOf(id)).toMatchObject({ t: 50, kind: 'skipped', reason: 'agent_stopped' });
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.clear' }]);
    const d = h.s.dump();
    expect(placesOf(d)).toEqual([]);
    expect(d.cooldownTimerAtMs).toBeNull();
    expect(h.s.pendingCount()).toBe(0);
    expect(h.pick(60)).toBeNull();
  });
});
