import { describe, it, expect } from 'vitest';
import { setup, ids } from './harness.ts';

describe('Scheduler starvation boost and cooldown (docs/spec.md §2.7, §2.3 step 4)', () => {
  it('G1 five preemptions of an L1 raise its effective level to 3; L1 and L2 no longer preempt it', () => {
    const h = setup({ cooldownMs: 500 });
    h.start('a', 1, 0);
    const preempters: Array<[string, number]> = [
      ['p1', 2],
      ['p2', 3],
      ['p3', 4],
      ['p4', 4],
      ['p5', 4],
    ];
    let t = 0;
    for (const [id, level] of preempters) {
      t += 1000; // beyond the cooldown of the previous suspension
      h.preempt(id, level, t);
      h.finish(t + 10);
      expect(h.pick(t + 10)).toEqual({ id: 'a', from: 'stack' });
    }
    expect(h.events('task.suspend').map((e) => e.eff)).toEqual([1, 2, 3, 3, 3]);
    const d = h.s.dump();
    expect(d.running).toMatchObject({ id: 'a', level: 1, preemptCount: 5, effectiveLevel: 3 });

    t += 1000; // out of cooldown: any refusal below is by level, not by cooldown
    expect(h.s.submitInterrupt('l1', 1, t)).toMatchObject({ kind: 'admitted', armed: false });
    expect(h.s.submitInterrupt('l2', 2, t)).toMatchObject({ kind: 'admitted', armed: false });
    expect(h.s.submitInterrupt('l3', 3, t)).toMatchObject({ kind: 'admitted', armed: false });
    expect(h.events('preempt.deferred').map((e) => [e.task, e.reason])).toEqual([
      ['l1', 'level'],
      ['l2', 'level'],
      ['l3', 'level'],
    ]);
    expect(h.s.safePoint(t, 'Model')).toBe('continue');
    expect(h.s.dump().armed).toBeNull();
    // Only an L4 still outranks it.
    expect(h.s.submitInterrupt('l4', 4, t + 1)).toMatchObject({ kind: 'admitted', armed: true });
  });

  it('G2 cooldown blocks preemption within 2 s; the deferred interrupt arms when the cooldown timer fires', () => {
    const h = setup();
    h.start('a', 1, 0);
    h.preempt('b', 2, 1000); // a suspended at t=1000
    h.finish(1500);
    expect(h.pick(1500)).toEqual({ id: 'a', from: 'stack' });
    expect(h.s.takeEffects()).toEqual([]);

    expect(h.s.submitInterrupt('c', 4, 2000)).toMatchObject({ kind: 'admitted', armed: false });
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'c', victim: 'a', reason: 'cooldown' }]);
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.set', atMs: 3000 }]);
    expect(h.s.dump().cooldownTimerAtMs).toBe(3000);

    // Safe points within the cooldown neither arm nor request a second timer.
    expect(h.s.safePoint(2500, 'Model')).toBe('continue');
    expect(h.s.safePoint(2999, 'ToolBegin')).toBe('continue');
    expect(h.s.takeEffects()).toEqual([]);
    let d = h.s.dump();
    expect(d.armed).toBeNull();
    expect(ids(d.levelQueues[4])).toEqual(['c']);

    expect(h.s.cooldownTimerFired(3000)).toBe(true);
    d = h.s.dump();
    expect(d.armed).toBe('c');
    expect(d.immediate?.id).toBe('c');
    expect(d.cooldownTimerAtMs).toBeNull();
    expect(h.events('preempt.armed').at(-1)).toMatchObject({ t: 3000, task: 'c', victim: 'a', reason: 'cooldown_end' });
    expect(d.counters.preemptsByLevel[4]).toBe(1);

    expect(h.s.safePoint(3000, 'Model')).toBe('suspended');
    expect(h.pick(3000)).toEqual({ id: 'c', from: 'immediate' });
  });

  it('G2 cooldown blocks even an L4; it ends exactly cooldownMs after the last suspension', () => {
    const h = setup({ cooldownMs: 2000 });
    h.start('q', null, 0);
    h.preempt('i1', 1, 100);
    h.finish(200);
    expect(h.pick(200)?.id).toBe('q');
    h.s.submitInterrupt('k', 4, 2099);
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'k', reason: 'cooldown' }]);
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.set', atMs: 2100 }]);
    // The timer must not fire early.
    expect(() => h.s.cooldownTimerFired(2099)).toThrow(/TIMER/);
    // A safe point at the cooldown's end re-arms by itself; suspending q clears the timer, which now
    // guards nothing (docs/spec.md §12.2: it must not delay the end of a run).
    expect(h.s.safePoint(2100, 'Model')).toBe('suspended');
    expect(h.events('preempt.armed').at(-1)).toMatchObject({ task: 'k', reason: 'rearm' });
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.clear' }]);
    expect(h.pick(2100)).toEqual({ id: 'k', from: 'immediate' });
    expect(() => h.s.cooldownTimerFired(2100)).toThrow(/TIMER/);
  });

  it('G2 a cooldown timer is cleared when the task it waits for ends: the deferred interrupt runs by pick order', () => {
    const h = setup({ cooldownMs: 2000 });
    h.start('q', null, 0);
    h.preempt('i1', 1, 50);
    h.finish(150);
    expect(h.pick(150)?.id).toBe('q');
    h.s.submitInterrupt('i2', 2, 200);
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.set', atMs: 2050 }]);
    h.finish(250);
    expect(h.s.takeEffects()).toEqual([{ type: 'timer.clear' }]);
    expect(h.pick(250)).toEqual({ id: 'i2', from: 'level' });
    expect(h.s.dump().cooldownTimerAtMs).toBeNull();
  });

  it('G3 queued tasks are never boosted: effective level stays 0 after several suspensions', () => {
    const h = setup();
    h.start('q', null, 0);
    for (let n = 1; n <= 4; n += 1) {
      const t = n * 3000;
      h.preempt(`i${n}`, 1, t);
      h.finish(t + 10);
      expect(h.pick(t + 10)).toEqual({ id: 'q', from: 'stack' });
    }
    expect(h.s.dump().running).toMatchObject({ id: 'q', cls: 'queued', preemptCount: 4, effectiveLevel: 0 });
    expect(h.events('task.resume').map((e) => e.eff)).toEqual([0, 0, 0, 0]);
    // Still preemptable by the lowest interrupt level.
    expect(h.s.submitInterrupt('i5', 1, 20_000)).toMatchObject({ kind: 'admitted', armed: true });
  });
});
