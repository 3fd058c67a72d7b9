/**
 * The tasks the agent tree creates on an agent (docs/spec.md §5, §10.3, §10.5, §10.7): under
 * `parentMessage: "discard"` only the parent's message fails the task it interrupts — not a
 * compress, not a child's notify, not a grandchild's event — and the offload notice goes to the head
 * of the root's queue, where a later offload leaves it.
 */
import { describe, expect, it } from 'vitest';
import type { OffloadConfig } from '../../../src/kernel/config.ts';
import { TreeWorld } from '../children/tree-world.ts';

/** Child c1 working on `job` (its model call open) and the root working on `boss`, both under `discard`. */
function bothAtWork(): TreeWorld {
  const w = new TreeWorld({ parentMessage: 'discard' });
  w.child({ id: 'c1' });
  w.queued('job', 'the child job', { agent: 'c1' });
  w.modelCall('job');
  w.queued('boss', 'the root job');
  w.modelCall('boss');
  return w;
}

describe('parentMessage "discard" fails only what a parent message interrupts (docs/spec.md §10.3, §10.5)', () => {
  it('a compress keeps the task it preempts: the task resumes and ends done', () => {
    const w = bothAtWork();
    w.control('boss', { action: 'compress', id: 'c1' });
    expect(w.replyOf('c1:1')).toEqual({ kind: 'done', reply: 'compressed: nothing older to summarise' });
    expect(w.on('c1', 'task.resume')).toEqual([expect.objectContaining({ task: 'job', after: 'c1:1' })]);
    w.answer('job', 'child job done');
    expect(w.replyOf('job')).toEqual({ kind: 'done', reply: 'child job done' });
  });

  it("a child's notify suspends the parent's task, which resumes and ends done", () => {
    const w = bothAtWork();
    w.answer('job', '', [{ name: 'notify_parent', args: '{"text":"halfway"}' }]);
    expect(w.on('root', 'task.suspend')).toEqual([expect.objectContaining({ task: 'boss', by: 'root:1' })]);
    w.answer('root:1', 'noted');
    w.answer('boss', 'root job done');
    expect(w.replyOf('boss')).toEqual({ kind: 'done', reply: 'root job done' });
  });

  it("a grandchild's kernel event runs on the child at L3 and suspends the child's task, which ends done", () => {
    const w = bothAtWork();
    w.child({ id: 'g1' }, 'c1');
    w.queued('gjob', 'the grandchild job', { agent: 'g1' });
    w.answer('gjob', '', [{ name: 'search' }]);
    w.toolPanic('gjob', 'segfault');
    expect(w.on('c1', 'child.event')).toEqual([
      expect.objectContaining({ task: 'c1:1', child: 'g1', reason: 'child_panic', level: 3 }),
    ]);
    expect(w.on('c1', 'task.suspend')).toEqual([expect.objectContaining({ task: 'job', by: 'c1:1' })]);
    w.answer('c1:1', 'seen');
    w.answer('job', 'child job done');
    expect(w.replyOf('job')).toEqual({ kind: 'done', reply: 'child job done' });
  });
});

describe('the offload notice (docs/spec.md §10.7)', () => {
  const TIMER = 'offload:root';
  const offload: Partial<OffloadConfig> = { enabled: true, busyAfterMs: 5_000, minPending: 3, maxHelpers: 2 };

  /** Queues `ids` on the root 100 ms apart, then fires the offload timer until it is due after `untilMs`. */
  function offloadRound(w: TreeWorld, ids: readonly string[], untilMs: number): void {
    for (const id of ids) w.at(w.now + 100).queued(id, `input ${id}`);
    for (let due = w.timers().get(TIMER); due !== undefined && due <= untilMs; due = w.timers().get(TIMER))
      w.fireTimer(TIMER);
  }

  it('is a kernel task from kernel/offload at the head of the queue; a later offload moves only the plain inputs and puts its notice ahead', () => {
    const w = new TreeWorld({ offload });
    w.queued('busy', 'a long job');
    offloadRound(w, ['a1', 'a2', 'a3'], 5_000);
    expect(w.submitted('root:1')).toMatchObject({
      agent: 'root',
      class: 'queued',
      kernel: true,
      source: 'kernel/offload',
      channel: 'kernel',
    });
    offloadRound(w, ['b1', 'b2', 'b3'], 6_000);
    expect(w.events('task.moved').map((m) => m.task)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
    expect(w.sched().queue.map((t) => t.id)).toEqual(['root:2', 'root:1']);
  });
});

describe('command order follows cause (docs/spec.md §2.7)', () => {
  it("a notify on a parent in cooldown asks for the parent's cooldown timer before the child goes on to its next model call", () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    w.queued('job', 'the child job', { agent: 'c1' });
    w.queued('boss', 'the root job');
    w.interrupt('i1', 'L1', 'a quick question');
    w.answer('i1', 'answered');
    // boss resumed at t = 0: it cannot be preempted again for cooldownMs.
    expect(w.modelCall('boss')).toBeDefined();
    w.answer('job', '', [{ name: 'notify_parent', args: '{"text":"halfway"}' }]);
    const order = w.last.flatMap((c) =>
      c.type === 'model.start' ? [c.task] : c.type === 'timer.set' && c.id.startsWith('cooldown:') ? [c.id] : [],
    );
    expect(order).toEqual(['cooldown:root', 'job']);
  });
});
