/**
 * The CallTracker's contract (agent/calls.ts): what the running step waits for, as observers see it,
 * and the `CALL:` assertions for facts that name no live call. The kernel routes a fact only to the
 * agent its call is bound to, so those assertions are reached here through the tracker itself.
 */
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import { CallTracker } from '../../../src/kernel/agent/calls.ts';
import type { Command } from '../../../src/kernel/protocol.ts';
import { moveTo } from '../../../src/kernel/steps/transitions.ts';
import { TaskTable } from '../../../src/kernel/task/table.ts';
import type { Task } from '../../../src/kernel/task/task.ts';
import { KernelWorld } from '../../support/kernel-world.ts';

describe('what the running step waits for (dump and running view)', () => {
  it('a model call, a ToolExec tool run and a ToolBatch batch each show, and nothing once the task ended', () => {
    const h = new KernelWorld();
    const waiting = () => [h.dump().current?.waiting, h.running().waiting];
    h.queued('q1', 'look, then write');
    expect(waiting()).toEqual(['model', 'model']);
    h.answer('q1', '', [{ name: 'write' }]);
    expect(waiting()).toEqual(['tool', 'tool']);
    h.toolResult('q1', 'written');
    h.answer('q1', '', [{ name: 'search' }, { name: 'fetch' }]);
    expect(h.openTools('q1')).toHaveLength(2);
    expect(waiting()).toEqual(['tool', 'tool']);
    for (const run of h.openTools('q1')) h.toolDone(run.callId, 'found');
    h.answer('q1', 'all done');
    expect(h.dump().current).toBeNull();
  });
});

/** A tracker whose ports number calls m1, t2, … and record the commands. */
function tracker(): { readonly calls: CallTracker; readonly commands: Command[] } {
  const commands: Command[] = [];
  let seq = 0;
  const calls = new CallTracker('root', 1_000, {
    newCallId: (kind) => `${kind}${(seq += 1)}`,
    bindCall: () => undefined,
    releaseCall: () => undefined,
    command: (c) => commands.push(c),
    trace: () => undefined,
    noteModelCancelled: () => undefined,
  });
  return { calls, commands };
}

/** A queued task whose cursor is on its Model step. */
function atModel(): Task {
  const task = new TaskTable('root').add({
    id: 'q1',
    level: null,
    source: 'user',
    channel: 'user',
    text: 'hello',
    kernel: false,
  });
  moveTo(task.frame, 'Model');
  return task;
}

function startModel(calls: CallTracker, task: Task): string {
  calls.startModel(task, { agent: 'root', task: task.id, replyIndex: 0, messages: [], tools: [], maxTokens: 100 }, 0);
  const live = calls.liveModel();
  expect(live?.task).toBe(task);
  return (live as { callId: string }).callId;
}

describe('facts for calls that are not live (CALL:)', () => {
  it('a chunk, an end or a tool result with nothing awaited is an assertion naming the call', () => {
    const { calls } = tracker();
    expect(() => calls.modelChunk('m9', { type: 'text', text: 'hi' })).toThrow(
      new AssertionError('CALL: chunk for m9, which is not the live model call'),
    );
    expect(() => calls.endModel('m9')).toThrow(new AssertionError('CALL: end of m9, which is not the live model call'));
    expect(() => calls.endTool('t9', 'result')).toThrow(
      new AssertionError('CALL: tool result for t9, which is not live'),
    );
    expect(() => calls.endTool('t9', 'panic')).toThrow(
      new AssertionError('CALL: tool panic for t9, which is not live'),
    );
  });

  it('a chunk for the live call reaching a task whose cursor left the Model step is a STEP assertion', () => {
    const { calls } = tracker();
    const task = new TaskTable('root').add({
      id: 'q1',
      level: null,
      source: 'user',
      channel: 'user',
      text: 'hello',
      kernel: false,
    });
    const callId = startModel(calls, task);
    expect(() => calls.modelChunk(callId, { type: 'text', text: 'hi' })).toThrow(
      new AssertionError('STEP: model.chunk for q1 arrived at its Prepare step, not at Model'),
    );
  });

  it('a timeout that fires after its call ended finds nothing: no cancel, and the next call stays live', () => {
    const { calls, commands } = tracker();
    const task = atModel();
    const first = startModel(calls, task);
    calls.endModel(first);
    expect(calls.timedOut(first)).toBeNull();
    const second = startModel(calls, task);
    expect(calls.timedOut(first)).toBeNull();
    expect(calls.liveModel()?.callId).toBe(second);
    expect(commands.filter((c) => c.type === 'model.cancel')).toEqual([]);
    // The live call's own timeout does end it, and cancels it.
    expect(calls.timedOut(second)?.callId).toBe(second);
    expect(commands.filter((c) => c.type === 'model.cancel')).toEqual([{ type: 'model.cancel', callId: second }]);
  });
});
