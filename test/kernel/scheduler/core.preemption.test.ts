import { describe, it, expect } from 'vitest';
import { setup, ids } from './harness.ts';

describe('Scheduler preemption (docs/spec.md §2.2–2.4)', () => {
  it('P1 a higher interrupt preempts: the victim is suspended at the Model safe point', () => {
    const h = setup();
    h.start('low', 1, 0);
    expect(h.s.safePoint(0, 'Prepare')).toBe('continue');

    expect(h.s.submitInterrupt('high', 2, 10)).toEqual({ kind: 'admitted', armed: true });
    const armedDump = h.s.dump();
    expect(armedDump.armed).toBe('high');
    expect(armedDump.immediate?.id).toBe('high');
    expect(armedDump.running?.id).toBe('low');
    expect(h.events('preempt.armed')).toMatchObject([{ task: 'high', victim: 'low', level: 2, reason: 'register' }]);

    expect(h.s.safePoint(10, 'Model')).toBe('suspended');
    expect(h.events('task.suspend')).toMatchObject([
      { t: 10, task: 'low', by: 'high', step: 'Model', level: 1, eff: 1, depthAfter: 1, reason: 'preempt' },
    ]);
    const d = h.s.dump();
    expect(d.running).toBeNull();
    expect(d.armed).toBeNull();
    expect(d.stack.map((e) => [e.task.id, e.effAtSuspend, e.by, e.suspendedAtMs])).toEqual([['low', 1, 'high', 10]]);
    expect(d.stack[0]?.task.preemptCount).toBe(1);
    expect(d.counters.suspended).toBe(1);
    expect(d.counters.interruptsByLevel).toEqual({ 1: 1, 2: 1, 3: 0, 4: 0 });
    expect(d.counters.preemptsByLevel).toEqual({ 1: 0, 2: 1, 3: 0, 4: 0 });

    expect(h.pick(10)).toEqual({ id: 'high', from: 'immediate' });
  });

  it('P2 an interrupt of equal level does not preempt (deferred, reason level)', () => {
    const h = setup();
    h.start('a', 2, 0);
    expect(h.s.submitInterrupt('b', 2, 5)).toEqual({ kind: 'admitted', armed: false });
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'b', victim: 'a', reason: 'level' }]);
    expect(h.s.safePoint(5, 'Model')).toBe('continue');
    const d = h.s.dump();
    expect(d.running?.id).toBe('a');
    expect(d.armed).toBeNull();
    expect(d.immediate).toBeNull();
    expect(ids(d.levelQueues[2])).toEqual(['b']);
    expect(d.stack).toHaveLength(0);
    expect(d.counters.preemptsByLevel[2]).toBe(0);
    expect(h.events('task.suspend')).toHaveLength(0);
  });

  it('P3 a lower interrupt does not preempt', () => {
    const h = setup();
    h.start('a', 3, 0);
    expect(h.s.submitInterrupt('b', 2, 5)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.submitInterrupt('c', 1, 5)).toEqual({ kind: 'admitted', armed: false });
    expect(h.events('preempt.deferred').map((e) => [e.task, e.reason])).toEqual([
      ['b', 'level'],
      ['c', 'level'],
    ]);
    expect(h.s.safePoint(5, 'Model')).toBe('continue');
    expect(h.s.safePoint(6, 'ToolBegin')).toBe('continue');
    const d = h.s.dump();
    expect(d.running?.id).toBe('a');
    expect(d.stack).toHaveLength(0);
    expect(ids(d.levelQueues[2])).toEqual(['b']);
    expect(ids(d.levelQueues[1])).toEqual(['c']);
  });

  it('P4 nested queued→L1→L2→L3→L4 gives depths 1..4, then unwinds L3, L2, L1, queued', () => {
    const h = setup();
    h.start('q', null, 0);
    h.preempt('i1', 1, 10);
    h.preempt('i2', 2, 20);
    h.preempt('i3', 3, 30);
    h.preempt('i4', 4, 40);
    expect(h.events('task.suspend').map((e) => [e.task, e.by, e.depthAfter, e.eff])).toEqual([
      ['q', 'i1', 1, 0],
      ['i1', 'i2', 2, 1],
      ['i2', 'i3', 3, 2],
      ['i3', 'i4', 4, 3],
    ]);
    const peak = h.s.dump();
    expect(peak.stack.map((e) => e.task.id)).toEqual(['q', 'i1', 'i2', 'i3']);
    expect(peak.running?.id).toBe('i4');

    const resumed: string[] = [];
    for (let t = 50; ; t += 10) {
      h.finish(t);
      const next = h.pick(t);
      if (next === null) break;
      expect(next.from).toBe('stack');
      resumed.push(next.id);
    }
    expect(resumed).toEqual(['i3', 'i2', 'i1', 'q']);
    expect(h.events('task.resume').map((e) => [e.task, e.after, e.depthAfter])).toEqual([
      ['i3', 'i4', 3],
      ['i2', 'i3', 2],
      ['i1', 'i2', 1],
      ['q', 'i1', 0],
    ]);
    const end = h.s.dump();
    expect(end.counters.suspended).toBe(4);
    expect(end.counters.resumed).toBe(4);
    expect(end.counters.executed).toBe(5);
  });

  it('P6 a critical section defers even L4; it arms only at the next safe point after leaving', () => {
    const h = setup();
    h.start('a', 1, 0);
    h.s.enterCritical(5);
    expect(h.s.submitInterrupt('k', 4, 10)).toEqual({ kind: 'admitted', armed: false });
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'k', victim: 'a', reason: 'critical' }]);
    // A safe point inside a whole-task critical section (consolidation) does not arm or yield.
    expect(h.s.safePoint(12, 'Model')).toBe('continue');
    let d = h.s.dump();
    expect(d.critical).toBe(true);
    expect(d.armed).toBeNull();
    expect(ids(d.levelQueues[4])).toEqual(['k']);

    h.s.leaveCritical(20);
    d = h.s.dump();
    expect(d.critical).toBe(false);
    expect(d.armed).toBeNull();
    expect(d.immediate).toBeNull();
    expect(h.events('preempt.armed')).toHaveLength(0);

    expect(h.s.safePoint(20, 'ToolAfter')).toBe('suspended');
    const types = h.rec.events.map((e) => e.type);
    const leave = types.indexOf('critical.leave');
    const armed = types.indexOf('preempt.armed');
    expect(leave).toBeGreaterThanOrEqual(0);
    expect(armed).toBeGreaterThan(leave);
    expect(h.events('preempt.armed')).toMatchObject([{ task: 'k', victim: 'a', level: 4, reason: 'rearm' }]);
    expect(h.events('task.suspend')).toMatchObject([{ task: 'a', by: 'k', step: 'ToolAfter' }]);
    expect(h.s.dump().counters.preemptsByLevel[4]).toBe(1);
    expect(h.pick(20)).toEqual({ id: 'k', from: 'immediate' });
  });

  it('P7 an L1 interrupt preempts a running queued task', () => {
    const h = setup();
    h.start('q', null, 0);
    expect(h.s.submitInterrupt('i', 1, 1)).toEqual({ kind: 'admitted', armed: true });
    expect(h.s.safePoint(1, 'Model')).toBe('suspended');
    expect(h.events('task.suspend')).toMatchObject([{ task: 'q', by: 'i', level: null, eff: 0 }]);
    expect(h.pick(1)).toEqual({ id: 'i', from: 'immediate' });
  });

  it('P8 a queued input never preempts, neither a queued task nor an interrupt', () => {
    const h = setup();
    h.start('q1', null, 0);
    expect(h.s.submitQueued('q2', 1)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.safePoint(1, 'Model')).toBe('continue');
    h.finish(2);
    h.start('i', 1, 3);
    expect(h.s.submitQueued('q3', 4)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.safePoint(4, 'Model')).toBe('continue');
    const d = h.s.dump();
    expect(d.running?.id).toBe('i');
    expect(d.armed).toBeNull();
    expect(ids(d.queue)).toEqual(['q2', 'q3']);
    expect(h.events('preempt.armed')).toHaveLength(0);
    expect(h.events('task.suspend')).toHaveLength(0);
  });

  it('D1T canSuspend() is true at depth 3 and false at depth 4', () => {
    const h = setup();
    h.start('q', null, 0);
    h.preempt('i1', 1, 1);
    h.preempt('i2', 2, 2);
    expect(h.s.canSuspend()).toBe(true);
    h.preempt('i3', 3, 3);
    expect(h.s.dump().stack).toHaveLength(3);
    expect(h.s.stackDepth()).toBe(3);
    expect(h.s.canSuspend()).toBe(true);
    h.preempt('i4', 4, 4);
    expect(h.s.dump().stack).toHaveLength(4);
    expect(h.s.dump().stackDepthMax).toBe(4);
    expect(h.s.canSuspend()).toBe(false);
    // Nothing can preempt the L4 at the bound: another L4 waits in its queue.
    expect(h.s.submitInterrupt('i5', 4, 5)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.safePoint(5, 'Model')).toBe('continue');
    expect(h.s.dump().stack).toHaveLength(4);
  });

  it('O2 trace events carry seq, t and agent; suspend/resume carry task, by/after, level, eff, depthAfter', () => {
    const h = setup({}, 'child-7');
    h.start('a', 1, 100);
    h.preempt('b', 3, 250);
    h.finish(400);
    expect(h.pick(400)).toEqual({ id: 'a', from: 'stack' });

    const seqs = h.rec.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(h.rec.events.every((e) => e.agent === 'child-7')).toBe(true);
    expect(h.events('task.submitted').map((e) => e.t)).toEqual([100, 250]);

    const [suspend] = h.events('task.suspend');
    expect(suspend).toEqual({
      seq: suspend?.seq,
      t: 250,
      agent: 'child-7',
      type: 'task.suspend',
      task: 'a',
      by: 'b',
      step: 'Model',
      level: 1,
      eff: 1,
      depthAfter: 1,
      reason: 'preempt',
    });
    const [resume] = h.events('task.resume');
    expect(resume).toEqual({
      seq: resume?.seq,
      t: 400,
      agent: 'child-7',
      type: 'task.resume',
      task: 'a',
      after: 'b',
      level: 1,
      eff: 2,
      depthAfter: 0,
    });
    expect(h.terminalOf('b')).toMatchObject({ t: 400, kind: 'done', reason: null });
  });
});
