import { describe, it, expect } from 'vitest';
import { setup, ids } from './harness.ts';

describe('Scheduler queues and pick order (docs/spec.md §2.1, §2.5, §2.8)', () => {
  it('Q1 level queues drain L4→L1 (FIFO within a level), then the queued FIFO', () => {
    const h = setup();
    h.s.submitQueued('q1', 0);
    h.s.submitInterrupt('a1', 1, 0);
    h.s.submitInterrupt('b2', 2, 0);
    h.s.submitQueued('q2', 0);
    h.s.submitInterrupt('c4', 4, 0);
    h.s.submitInterrupt('d3', 3, 0);
    h.s.submitInterrupt('e1', 1, 0);
    h.s.submitInterrupt('f4', 4, 0);
    const order: string[] = [];
    const from: string[] = [];
    for (let t = 1; ; t += 1) {
      const next = h.pick(t);
      if (next === null) break;
      order.push(next.id);
      from.push(next.from);
      h.finish(t);
    }
    expect(order).toEqual(['c4', 'f4', 'd3', 'b2', 'a1', 'e1', 'q1', 'q2']);
    expect(from).toEqual(['level', 'level', 'level', 'level', 'level', 'level', 'queue', 'queue']);
    expect(h.s.dump().counters.executed).toBe(8);
  });

  it('Q2 a suspended task is picked before new queued work', () => {
    const h = setup();
    h.start('q1', null, 0);
    h.preempt('i', 1, 10);
    h.s.submitQueued('q2', 11);
    h.finish(20);
    expect(h.pick(20)).toEqual({ id: 'q1', from: 'stack' });
    h.finish(30);
    expect(h.pick(30)).toEqual({ id: 'q2', from: 'queue' });
  });

  it('Q3 stack top (effective L3) vs an L2 head → the stack top resumes', () => {
    const h = setup();
    h.start('m', 2, 0);
    h.preempt('x', 3, 10); // m is suspended at eff 2 and boosted to eff 3.
    expect(h.s.submitInterrupt('n', 2, 11)).toEqual({ kind: 'admitted', armed: false });
    h.finish(20);
    expect(h.s.dump().stack[0]?.task.effectiveLevel).toBe(3);
    expect(h.pick(20)).toEqual({ id: 'm', from: 'stack' });
    expect(ids(h.s.dump().levelQueues[2])).toEqual(['n']);
  });

  it('Q3 stack top (effective L3) vs an L4 head → the head runs first', () => {
    const h = setup();
    h.start('m', 2, 0);
    h.preempt('x', 3, 10);
    h.s.enterCritical(11);
    expect(h.s.submitInterrupt('k', 4, 12)).toEqual({ kind: 'admitted', armed: false });
    h.finish(20); // ends the critical section too; nothing was armed.
    expect(h.s.dump().stack[0]?.task.effectiveLevel).toBe(3);
    expect(h.pick(20)).toEqual({ id: 'k', from: 'level' });
    h.finish(30);
    expect(h.pick(30)).toEqual({ id: 'm', from: 'stack' });
  });

  it('Q3 stack top with a tie (an L3 boosted to 4 vs an L4 head) → the stack top (ties go to the stack)', () => {
    const h = setup();
    h.start('c', 3, 0);
    h.preempt('k1', 4, 10);
    expect(h.s.submitInterrupt('k2', 4, 11)).toEqual({ kind: 'admitted', armed: false });
    h.finish(20);
    expect(h.pick(20)).toEqual({ id: 'c', from: 'stack' });
  });

  it('Q3 stack top queued vs an L1 head → the head runs first', () => {
    const h = setup();
    h.start('q', null, 0);
    h.preempt('i1', 1, 10);
    expect(h.s.submitInterrupt('i2', 1, 11)).toEqual({ kind: 'admitted', armed: false });
    h.finish(20);
    expect(h.pick(20)).toEqual({ id: 'i2', from: 'level' });
    h.finish(30);
    expect(h.pick(30)).toEqual({ id: 'q', from: 'stack' });
  });

  it('Q4 a full queued FIFO refuses with skipped/queue_full, counted in backpressure, not rejected', () => {
    const h = setup({ maxQueue: 2 });
    expect(h.s.submitQueued('q1', 0)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.submitQueued('q2', 0)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.submitQueued('q3', 1)).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'queue_full' },
    });
    let d = h.s.dump();
    expect(d.counters.backpressure).toBe(1);
    expect(d.counters.rejected).toBe(0);
    expect(d.counters.dropped).toBe(0);
    expect(ids(d.queue)).toEqual(['q1', 'q2']);
    // Nothing is lost silently: the refused task has its terminal event and a backpressure event.
    expect(h.terminalOf('q3')).toMatchObject({ t: 1, kind: 'skipped', reason: 'queue_full' });
    expect(h.events('backpressure')).toMatchObject([{ task: 'q3', queueLen: 2 }]);
    // The running task is not counted: after a pick there is room again.
    expect(h.pick(2)?.id).toBe('q1');
    expect(h.s.submitQueued('q4', 2)).toEqual({ kind: 'admitted', armed: false });
    d = h.s.dump();
    expect(ids(d.queue)).toEqual(['q2', 'q4']);
    expect(h.s.pendingCount()).toBe(3);
  });

  it('Q4 kernel queued tasks bypass the FIFO bound by at most 64, then end dropped/self_loop_full', () => {
    const h = setup({ maxQueue: 2 });
    h.s.submitQueued('q1', 0);
    h.s.submitQueued('q2', 0);
    for (let n = 1; n <= 64; n += 1) {
      expect(h.s.submitQueued(`root:${n}`, 0, { kernel: true })).toEqual({ kind: 'admitted', armed: false });
    }
    expect(h.s.submitQueued('root:65', 1, { kernel: true })).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'dropped', reason: 'self_loop_full' },
    });
    expect(h.s.submitQueued('q3', 1)).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'queue_full' },
    });
    const d = h.s.dump();
    expect(d.queue).toHaveLength(66);
    expect(d.counters.dropped).toBe(1);
    expect(d.counters.rejected).toBe(0);
    expect(d.counters.backpressure).toBe(1);
    expect(h.terminalOf('root:65')).toMatchObject({ kind: 'dropped', reason: 'self_loop_full' });
  });

  it('Q5 interrupt overflow drops the oldest task of the lowest level, counted in rejected and dropped', () => {
    const h = setup({ maxQueue: 3 });
    h.s.submitInterrupt('a2', 2, 0);
    h.s.submitInterrupt('b1', 1, 1);
    h.s.submitInterrupt('c1', 1, 2);
    expect(h.s.submitInterrupt('d3', 3, 3)).toEqual({ kind: 'admitted', armed: false });
    const d = h.s.dump();
    expect(ids(d.levelQueues[1])).toEqual(['c1']);
    expect(ids(d.levelQueues[2])).toEqual(['a2']);
    expect(ids(d.levelQueues[3])).toEqual(['d3']);
    expect(d.counters.rejected).toBe(1);
    expect(d.counters.dropped).toBe(1);
    expect(d.counters.interruptsByLevel).toEqual({ 1: 2, 2: 1, 3: 1, 4: 0 });
    // A dropped interrupt has nothing to say: its reply is empty.
    expect(h.terminalOf('b1')).toMatchObject({ t: 3, kind: 'dropped', reason: 'interrupt_overflow', reply: '' });
    expect(h.events('queue.drop')).toMatchObject([{ t: 3, victim: 'b1', for: 'd3', level: 1 }]);
  });

  it('Q5 the newcomer is the victim when it is the only task of the lowest level', () => {
    const h = setup({ maxQueue: 2 });
    h.s.submitInterrupt('a2', 2, 0);
    h.s.submitInterrupt('b3', 3, 0);
    expect(h.s.submitInterrupt('c1', 1, 1)).toEqual({
      kind: 'ended',
      terminal: { kind: 'dropped', reason: 'interrupt_overflow', reply: '' },
    });
    const d = h.s.dump();
    expect(ids(d.levelQueues[2])).toEqual(['a2']);
    expect(ids(d.levelQueues[3])).toEqual(['b3']);
    expect(d.levelQueues[1]).toHaveLength(0);
    expect(d.counters.rejected).toBe(1);
    expect(d.counters.dropped).toBe(1);
    expect(h.terminalOf('c1')).toMatchObject({ kind: 'dropped', reason: 'interrupt_overflow' });
    expect(h.events('queue.drop')).toMatchObject([{ victim: 'c1', for: 'c1', level: 1 }]);
    expect(h.s.pendingCount()).toBe(2);
  });

  it('Q5 a newcomer of the lowest level counts as its newest: the older head is dropped', () => {
    const h = setup({ maxQueue: 2 });
    h.s.submitInterrupt('a1', 1, 0);
    h.s.submitInterrupt('b2', 2, 0);
    expect(h.s.submitInterrupt('c1', 1, 1)).toEqual({ kind: 'admitted', armed: false });
    expect(ids(h.s.dump().levelQueues[1])).toEqual(['c1']);
    expect(h.terminalOf('a1')).toMatchObject({ kind: 'dropped', reason: 'interrupt_overflow' });
  });

  it('Q5 the immediate occupant is never the victim, even when it is the lowest level', () => {
    const h = setup({ maxQueue: 3 });
    h.start('q', null, 0);
    expect(h.s.submitInterrupt('occ', 1, 1)).toEqual({ kind: 'admitted', armed: true });
    h.finish(2); // the occupant stays in the immediate slot
    h.s.submitInterrupt('a2', 2, 3);
    h.s.submitInterrupt('b3', 3, 3);
    expect(h.s.submitInterrupt('c2', 2, 4)).toEqual({ kind: 'admitted', armed: false });
    const d = h.s.dump();
    expect(d.immediate?.id).toBe('occ');
    expect(ids(d.levelQueues[2])).toEqual(['c2']);
    expect(h.events('queue.drop')).toMatchObject([{ victim: 'a2', for: 'c2', level: 2 }]);
    expect(h.events('task.terminal').some((e) => e.task === 'occ')).toBe(false);
  });

  it('Q5 a newcomer taking the immediate slot of a full container drops a level-queue head, never itself', () => {
    const h = setup({ maxQueue: 2 });
    h.start('r', 1, 0);
    h.s.submitInterrupt('a1', 1, 1);
    h.s.submitInterrupt('b1', 1, 1);
    expect(h.s.submitInterrupt('x3', 3, 2)).toEqual({ kind: 'admitted', armed: true });
    const d = h.s.dump();
    expect(d.immediate?.id).toBe('x3');
    expect(d.armed).toBe('x3');
    expect(ids(d.levelQueues[1])).toEqual(['b1']);
    expect(h.events('queue.drop')).toMatchObject([{ victim: 'a1', for: 'x3', level: 1 }]);
    expect(d.counters.preemptsByLevel[3]).toBe(1);
  });

  it('Q5 an evicted immediate occupant goes back to its level queue and keeps its id', () => {
    const h = setup();
    h.start('r', 1, 0);
    expect(h.s.submitInterrupt('y2', 2, 1)).toEqual({ kind: 'admitted', armed: true });
    expect(h.s.submitInterrupt('z2', 2, 1)).toEqual({ kind: 'admitted', armed: false });
    expect(h.s.submitInterrupt('x3', 3, 2)).toEqual({ kind: 'admitted', armed: true });
    const d = h.s.dump();
    expect(d.immediate?.id).toBe('x3');
    expect(ids(d.levelQueues[2])).toEqual(['z2', 'y2']);
    expect(h.events('preempt.armed').map((e) => [e.task, e.evicted])).toEqual([
      ['y2', null],
      ['x3', 'y2'],
    ]);
    expect(d.counters.preemptsByLevel).toEqual({ 1: 0, 2: 1, 3: 1, 4: 0 });
  });

  it('Q6 the immediate slot beats a higher queued level', () => {
    const h = setup();
    h.start('q', null, 0);
    expect(h.s.submitInterrupt('occ', 1, 1)).toEqual({ kind: 'admitted', armed: true });
    h.finish(2); // finished instead of suspended: the slot stays occupied, nothing armed
    let d = h.s.dump();
    expect(d.running).toBeNull();
    expect(d.armed).toBeNull();
    expect(d.immediate?.id).toBe('occ');
    expect(h.s.submitInterrupt('hi', 4, 3)).toEqual({ kind: 'admitted', armed: false });
    expect(h.pick(4)).toEqual({ id: 'occ', from: 'immediate' });
    d = h.s.dump();
    expect(d.immediate).toBeNull();
    expect(ids(d.levelQueues[4])).toEqual(['hi']);
    expect(h.events('task.start').map((e) => [e.task, e.from])).toEqual([
      ['q', 'queue'],
      ['occ', 'immediate'],
    ]);
  });

  it('refuse() ends a task skipped with its reason; only invalid counts as rejected', () => {
    const h = setup();
    expect(h.s.refuse('dup', 'queued', null, 'duplicate', 0)).toMatchObject({ kind: 'skipped', reason: 'duplicate' });
    expect(h.s.refuse('empty', 'interrupt', 2, 'empty_input', 0)).toMatchObject({
      kind: 'skipped',
      reason: 'empty_input',
    });
    expect(h.s.dump().counters.rejected).toBe(0);
    expect(h.events('task.rejected')).toHaveLength(0);
    expect(h.s.refuse('bad', 'queued', null, 'invalid', 1)).toMatchObject({ kind: 'skipped', reason: 'invalid' });
    const d = h.s.dump();
    expect(d.counters.rejected).toBe(1);
    expect(d.counters.backpressure).toBe(0);
    expect(h.events('task.rejected')).toMatchObject([{ task: 'bad', reason: 'invalid' }]);
    expect(h.terminalOf('dup')).toMatchObject({ kind: 'skipped', reason: 'duplicate' });
    expect(h.terminalOf('empty')).toMatchObject({ kind: 'skipped', reason: 'empty_input' });
    expect(h.terminalOf('bad')).toMatchObject({ kind: 'skipped', reason: 'invalid' });
    expect(h.events('task.submitted').map((e) => e.task)).toEqual(['dup', 'empty', 'bad']);
    expect(h.s.pendingCount()).toBe(0);
    expect(h.pick(2)).toBeNull();
  });
});

describe('the offload moves on the queued FIFO (docs/spec.md §10.7)', () => {
  it('a front submission is queued at the FIFO head, ahead of earlier queued work', () => {
    const h = setup();
    h.s.submitQueued('q1', 0);
    h.s.submitQueued('q2', 0);
    expect(h.s.submitQueued('notice', 0, { kernel: true, front: true })).toEqual({ kind: 'admitted', armed: false });
    expect(ids(h.s.dump().queue)).toEqual(['notice', 'q1', 'q2']);
  });

  it('takeQueued takes only the selected tasks, in FIFO order, keeps the others in order, and ends none', () => {
    const h = setup();
    for (const id of ['a', 'b', 'c', 'd']) h.s.submitQueued(id, 0);
    expect(h.s.takeQueued((id) => id === 'b' || id === 'd', 1)).toEqual(['b', 'd']);
    expect(ids(h.s.dump().queue)).toEqual(['a', 'c']);
    expect(h.events('task.terminal')).toEqual([]);
  });
});
