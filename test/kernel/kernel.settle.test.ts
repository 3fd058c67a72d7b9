/**
 * The kernel's settle loop (ARCHITECTURE "One door"): an input released by a terminal hook
 * (`submit.after`) is routed before any agent picks its next task, whichever agent the ending task ran
 * on and whichever agent the input goes to.
 */
import { describe, expect, it } from 'vitest';
import { KernelWorld } from '../support/kernel-world.ts';
import { TreeWorld } from './children/tree-world.ts';

describe('submit.after, released inside a step', () => {
  it('a task stop-marked during a tool call ends at its next safe point, and its released interrupt runs before the waiting queued input', () => {
    const w = new KernelWorld();
    w.queued('t1', 'write it');
    w.answer('t1', '', [{ name: 'write' }]);
    // The stop marks t1 (a tool runs: it ends at its next safe point, docs/spec.md §2.9) and cancels the FIFO.
    w.at(5).stopButton('stop');
    w.queued('t3', 'waiting');
    w.feed({
      type: 'submit.after',
      task: 't1',
      submission: { id: 't2', cls: 'interrupt', level: 2, text: 'after t1', source: 'user' },
    });
    w.at(10).toolResult('t1', 'written');
    expect(w.replyOf('t1')).toMatchObject({ kind: 'cancelled', reason: 'user_stop' });
    expect(w.commands('model.start').map((c) => c.task)).toEqual(['t1', 't2']);
    expect(w.commands('model.cancel')).toEqual([]);
  });

  // The root advances before its child in a settle pass: an input the child's terminal releases for
  // the root used to wait, unstarted, for the next reaction.
  it("a child's task that ends releases an input for the root, which the root starts in the same reaction", () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.child({ id: 'c1', inputChs: ['qq/a'] });
    w.queued('x1', 'for the child', { channel: 'qq/a', source: 'qq/a' });
    w.answer('x1', '', [{ name: 'write' }]);
    w.at(5).stopButton('stop', '', { agent: 'c1' });
    w.feed({
      type: 'submit.after',
      task: 'x1',
      submission: { id: 'r1', cls: 'queued', text: 'for the root', source: 'user' },
    });
    w.at(10).toolResult('x1', 'written');
    expect(w.replyOf('x1')).toMatchObject({ kind: 'cancelled', reason: 'user_stop' });
    expect(w.commands('model.start', w.last).map((c) => c.task)).toEqual(['r1']);
    w.answer('r1', 'done');
    expect(w.violationsAtEnd()).toEqual([]);
  });
});
