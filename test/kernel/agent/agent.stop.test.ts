/**
 * What an agent's door refuses outright and what counts as the stop button (docs/spec.md §2.9): a
 * submission whose id is a live task is a caller bug, and `stop: true` is the stop button on an
 * interrupt only.
 */
import { describe, expect, it } from 'vitest';
import { KernelWorld } from '../../support/kernel-world.ts';

describe('a submission id that is already a live task', () => {
  it('is a caller bug, thrown with the id and the agent, and the live task carries on untouched', () => {
    const h = new KernelWorld();
    h.queued('a', 'first job');
    expect(() => h.queued('a', 'another job')).toThrow('submission id a is already a live task on root');
    expect(h.events('task.submitted').map((e) => e.task)).toEqual(['a']);
    h.answer('a', 'first done');
    expect(h.replyOf('a')).toEqual({ kind: 'done', reply: 'first done' });
  });
});

describe('the stop button is an interrupt (docs/spec.md §2.9)', () => {
  it('a queued input flagged stop is an ordinary queued input: nothing is cancelled or marked', () => {
    const h = new KernelWorld();
    h.queued('running', 'the job');
    h.queued('waiting', 'the next job');
    expect(h.queued('flagged', 'one more job', { stop: true })).toEqual({ kind: 'accepted' });
    expect(h.events('stop')).toEqual([]);
    expect(h.sched().queue.map((t) => t.id)).toEqual(['waiting', 'flagged']);
    h.answer('running', 'job done');
    expect(h.replyOf('running')).toEqual({ kind: 'done', reply: 'job done' });
  });
});
