/**
 * The kernel's one door (ARCHITECTURE "One door"): late facts for a call that is not live, and the
 * root's offload timer, observed through commands, counters and trace events.
 */
import { describe, expect, it } from 'vitest';
import { KernelWorld } from '../support/kernel-world.ts';
import { TreeWorld } from './children/tree-world.ts';

const TIMER = 'offload:root';

describe('late facts', () => {
  it('a model chunk for an id never issued is counted as a late chunk on the root and discarded', () => {
    const w = new KernelWorld();
    w.handle({ type: 'model.chunk', callId: 'nope', chunk: { type: 'text', text: 'x' } } as never);
    expect(w.sched().counters.lateChunksDiscarded).toBe(1);
    expect(w.sched().counters.lateToolResultsDiscarded).toBe(0);
    expect(w.events('fact.discarded')).toMatchObject([{ callId: 'nope', fact: 'model.chunk' }]);
  });

  it('a fact for a call that ended normally is discarded, not reported late for its task', () => {
    const w = new KernelWorld();
    w.queued('t1', 'hello');
    const call = w.modelCall('t1');
    w.answer('t1', 'hi');
    expect(w.hasReply('t1')).toBe(true);
    w.handle({ type: 'model.done', callId: call.callId, usage: { inputTokens: 1, outputTokens: 1 } } as never);
    expect(w.events('model.chunk.late')).toEqual([]);
    expect(w.events('fact.discarded')).toMatchObject([{ callId: call.callId, fact: 'model.done' }]);
    expect(w.sched().counters.lateChunksDiscarded).toBe(1);
  });
});

describe('late facts of a cancelled call', () => {
  // A preempted model call is cancelled at once (docs/spec.md §2.3 step 2). A completion the provider still
  // sends is late data, counted as a late chunk; its `model.failed`, the abort's acknowledgement, just
  // closes the call.
  function cancelled(): { w: KernelWorld; callId: string } {
    const w = new KernelWorld();
    w.queued('q1', 'long answer');
    const call = w.modelCall('q1');
    w.at(5).interrupt('i1', 'L2', 'now');
    expect(w.commands('model.cancel')).toEqual([{ type: 'model.cancel', callId: call.callId }]);
    return { w, callId: call.callId };
  }

  it('a model.done for a preempted call is a late model fact of its task', () => {
    const { w, callId } = cancelled();
    w.at(6).handle({ type: 'model.done', callId, usage: { inputTokens: 1, outputTokens: 1 } });
    expect(w.events('model.chunk.late')).toMatchObject([{ agent: 'root', task: 'q1', callId }]);
    expect(w.sched().counters.lateChunksDiscarded).toBe(1);
    expect(w.sched().counters.lateToolResultsDiscarded).toBe(0);
  });

  it('a model.failed for a preempted call closes it uncounted; a second one, for a closed id, is discarded as a model fact', () => {
    const { w, callId } = cancelled();
    w.at(6).handle({ type: 'model.failed', callId, failure: 'error', error: 'aborted' });
    expect(w.events('model.chunk.late')).toEqual([]);
    expect(w.events('fact.discarded')).toEqual([]);
    expect(w.sched().counters.lateChunksDiscarded).toBe(0);
    w.at(7).handle({ type: 'model.failed', callId, failure: 'error', error: 'again' });
    expect(w.events('fact.discarded')).toMatchObject([{ agent: 'root', callId, fact: 'model.failed' }]);
    expect(w.sched().counters.lateChunksDiscarded).toBe(1);
    expect(w.sched().counters.lateToolResultsDiscarded).toBe(0);
  });
});

describe('submit.after', () => {
  it("an input released by a task's end is routed before the agent picks its next task", () => {
    const w = new KernelWorld();
    w.queued('t1', 'first');
    w.modelCall('t1');
    w.queued('t3', 'waiting');
    w.feed({
      type: 'submit.after',
      task: 't1',
      submission: { id: 't2', cls: 'interrupt', level: 2, text: 'after t1', source: 'user' },
    });
    w.answer('t1', 'done');
    expect(w.commands('model.start').map((c) => c.task)).toEqual(['t1', 't2']);
  });
});

describe("the root's offload timer", () => {
  const world = () => new TreeWorld({ offload: { enabled: true, busyAfterMs: 5_000, minPending: 3, maxHelpers: 2 } });

  it('is set as offload:root while the root is busy, and cleared when the root is stopped by agent.stop', () => {
    const w = world();
    w.at(100).queued('busy', 'a long job');
    expect(w.timers().has(TIMER)).toBe(true);
    expect(w.feed({ type: 'agent.stop', agent: 'root' })).toEqual({ kind: 'stopped' });
    expect(w.last).toContainEqual({ type: 'timer.clear', id: TIMER });
    expect(w.timers().has(TIMER)).toBe(false);
  });

  it('stays set when agent.stop stops a child', () => {
    const w = world();
    w.child({ id: 'c1' });
    w.at(100).queued('busy', 'a long job');
    expect(w.timers().has(TIMER)).toBe(true);
    expect(w.feed({ type: 'agent.stop', agent: 'c1' })).toEqual({ kind: 'stopped' });
    expect(w.last).not.toContainEqual({ type: 'timer.clear', id: TIMER });
    expect(w.timers().has(TIMER)).toBe(true);
  });

  it('refuses agent.stop for an unknown agent', () => {
    const w = world();
    expect(w.feed({ type: 'agent.stop', agent: 'ghost' })).toEqual({ kind: 'refused', error: 'unknown agent "ghost"' });
  });
});
