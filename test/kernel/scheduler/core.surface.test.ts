/**
 * The scheduler core's surface beyond the preemption rules: its configuration checks, the decisions it
 * makes with tracing off (the benchmark hot path builds no event at all), and what its answers and its
 * assertion messages say.
 */
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import { Scheduler, type SchedulerDump } from '../../../src/kernel/scheduler/core.ts';
import { canPreempt } from '../../../src/kernel/scheduler/levels.ts';
import { SuspendStack } from '../../../src/kernel/scheduler/suspend-stack.ts';
import { Tracer, TraceRecorder } from '../../../src/kernel/trace/vocabulary.ts';
import { setup } from './harness.ts';

/**
 * One run through every path that emits an event of its own (critical enter and leave, backpressure,
 * an invalid refusal, a suspension and a resume, a cooldown timer, an overflow drop, an arm by the
 * timer), returning each call's answer and the final dump.
 */
function script(s: Scheduler): { answers: unknown[]; dump: SchedulerDump } {
  const id = (t: { id: string } | null): string | null => t?.id ?? null;
  const answers: unknown[] = [];
  answers.push(s.submitQueued('q1', 0), id(s.pick(0)));
  s.enterCritical(1);
  s.leaveCritical(2);
  answers.push(s.submitQueued('q2', 3), s.submitQueued('q3', 3), s.submitQueued('q4', 3));
  answers.push(s.refuse('bad', 'queued', null, 'invalid', 4));
  answers.push(s.submitInterrupt('i1', 1, 5), s.safePoint(5, 'Model'), id(s.pick(5)));
  answers.push(id(s.finishRunning({ kind: 'done' }, 6)), id(s.pick(6)), s.lastPickSource());
  // q1 resumed at 6, suspended at 5: in cooldown until 105, so i2 waits and a timer is requested.
  answers.push(s.submitInterrupt('i2', 2, 7), s.submitInterrupt('i3', 1, 8), s.submitInterrupt('i4', 1, 9));
  answers.push(s.cooldownTimerFired(105), s.safePoint(105, 'Model'), s.takeEffects());
  return { answers, dump: s.dump() };
}

describe('Scheduler configuration (CONFIG)', () => {
  it('refuses a maxQueue that is not an integer of at least 1, naming the option and the value', () => {
    for (const maxQueue of [0, -1, 1.5, Number.NaN]) {
      expect(() => new Scheduler('root', { maxQueue })).toThrow(AssertionError);
      expect(() => new Scheduler('root', { maxQueue })).toThrow(
        `CONFIG: maxQueue must be an integer >= 1, got ${maxQueue}`,
      );
    }
    expect(new Scheduler('root', { maxQueue: 1 }).config.maxQueue).toBe(1);
  });

  it('refuses a negative cooldownMs; 0 (no cooldown) is allowed', () => {
    expect(() => new Scheduler('root', { cooldownMs: -1 })).toThrow('CONFIG: cooldownMs must be >= 0, got -1');
    expect(new Scheduler('root', { cooldownMs: 0 }).config.cooldownMs).toBe(0);
  });
});

describe('Scheduler with tracing off', () => {
  it('makes the same decisions and reaches the same state as a traced scheduler', () => {
    const config = { maxQueue: 2, cooldownMs: 100, verify: true };
    const rec = new TraceRecorder();
    const traced = script(new Scheduler('root', config, new Tracer(rec)));
    const untraced = script(new Scheduler('root', config, null));
    expect(untraced).toEqual(traced);
    // The script reaches every path it is meant to, so the comparison above covers them all.
    const types = new Set(rec.events.map((e) => e.type));
    for (const t of [
      'critical.enter',
      'critical.leave',
      'backpressure',
      'task.rejected',
      'task.resume',
      'cooldown.timer',
      'queue.drop',
    ] as const) {
      expect(types, t).toContain(t);
    }
    expect(rec.events.filter((e) => e.type === 'preempt.armed').map((e) => e.reason)).toEqual([
      'register',
      'cooldown_end',
    ]);
  });
});

describe('Scheduler answers', () => {
  it('refuse() of a kernel task records it as a kernel task (BALANCE counts it on its agent)', () => {
    const h = setup();
    h.s.refuse('k', 'queued', null, 'empty_input', 0, { kernel: true });
    h.s.refuse('x', 'queued', null, 'empty_input', 0);
    expect(h.events('task.submitted').map((e) => [e.task, e.kernel])).toEqual([
      ['k', true],
      ['x', false],
    ]);
  });

  it('lastPickSource() is null after an idle pick, whatever the pick before it', () => {
    const h = setup();
    h.start('a', null, 0);
    expect(h.s.lastPickSource()).toBe('queue');
    h.finish(1);
    expect(h.s.pick(1)).toBeNull();
    expect(h.s.lastPickSource()).toBeNull();
  });

  it('I1: each call that needs a running task names itself in the failure', () => {
    const s = new Scheduler('root', { verify: true });
    expect(() => s.safePoint(0, 'Model')).toThrow('I1: safePoint needs a running task on root');
    expect(() => s.finishRunning({ kind: 'done' }, 0)).toThrow('I1: finishRunning needs a running task');
    expect(() => s.enterCritical(0)).toThrow('I1: enterCritical needs a running task');
    expect(() => s.leaveCritical(0)).toThrow('I1: leaveCritical needs a running task');
  });

  it('P8 canPreempt: nothing preempts an idle agent, and a queued task never preempts', () => {
    const l4 = { cls: 'interrupt', level: 4, preemptCount: 0 } as const;
    expect(canPreempt(l4, null)).toBe(false);
    expect(
      canPreempt({ cls: 'queued', level: null, preemptCount: 0 }, { cls: 'queued', level: null, preemptCount: 0 }),
    ).toBe(false);
  });

  it('STACK: a push that does not raise the level names both tasks and their levels', () => {
    const s = new SuspendStack<{ id: string }>();
    s.push({ task: { id: 'low' }, effAtSuspend: 2, by: 'x', suspendedAtMs: 0 });
    expect(() => s.push({ task: { id: 'top' }, effAtSuspend: 2, by: 'y', suspendedAtMs: 1 })).toThrow(
      'STACK: top suspended at effective level 2 on top of low at 2; levels must strictly increase',
    );
  });
});
