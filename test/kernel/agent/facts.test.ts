/**
 * How facts resume the waiting step (agent/facts.ts): the usage a task's model calls report is summed
 * in its frame (docs/spec.md §3.3), and a fact that reaches a task whose cursor is not on the step waiting for
 * it is a kernel bug, reported by naming the fact (`STEP:`). The kernel itself never routes a fact to
 * the wrong step, so the functions are driven here with a CallTracker and a task of their own.
 */
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import { CallTracker } from '../../../src/kernel/agent/calls.ts';
import {
  modelCallDone,
  modelCallFailed,
  modelCallTimedOut,
  preemptModelCall,
  toolCallDone,
  toolCallPanicked,
} from '../../../src/kernel/agent/facts.ts';
import type { StepHost } from '../../../src/kernel/steps/host.ts';
import { moveTo } from '../../../src/kernel/steps/transitions.ts';
import { TaskTable } from '../../../src/kernel/task/table.ts';
import type { Task } from '../../../src/kernel/task/task.ts';
import type { StepName } from '../../../src/kernel/trace/vocabulary.ts';
import { KernelWorld } from '../../support/kernel-world.ts';

/** A host offering only `parts`: any other capability a fact reaches for fails the test. */
function hostWith(parts: Partial<StepHost> = {}): StepHost {
  return new Proxy(parts as StepHost, {
    get: (target, name) => {
      if (name in target) return target[name as keyof StepHost];
      throw new Error(`the fact used host.${String(name)}`);
    },
  });
}

function newCalls(): CallTracker {
  let seq = 0;
  return new CallTracker('root', 1_000, {
    newCallId: (kind) => `${kind}${(seq += 1)}`,
    bindCall: () => undefined,
    releaseCall: () => undefined,
    command: () => undefined,
    trace: () => undefined,
    noteModelCancelled: () => undefined,
  });
}

/** Task q1 with its cursor walked to `steps` (moveTo is the cursor's only writer). */
function taskAt(...steps: StepName[]): Task {
  const task = new TaskTable('root').add({
    id: 'q1',
    level: null,
    source: 'user',
    channel: 'user',
    text: 'hello',
    kernel: false,
  });
  for (const step of steps) moveTo(task.frame, step);
  return task;
}

function startModel(calls: CallTracker, task: Task): string {
  calls.startModel(task, { agent: 'root', task: task.id, replyIndex: 0, messages: [], tools: [], maxTokens: 100 }, 0);
  return (calls.liveModel() as { callId: string }).callId;
}

/** A ToolBatch step of q1 with one runner call out, whose cursor then moved on to TurnEnd. */
function batchLeftBehind(calls: CallTracker): string {
  const task = taskAt('Model', 'ToolBatch');
  const call = { id: 'c1', name: 'search', args: '{}' };
  task.frame.pending = [call];
  calls.startTool(task, call, 0);
  calls.beginBatch(task, [0], []);
  moveTo(task.frame, 'TurnEnd');
  return 't1';
}

describe('usage (docs/spec.md §3.3: the frame holds the usage sum)', () => {
  it('the frame sums the usage every model call of the task reports', () => {
    const calls = newCalls();
    const task = taskAt('Model');
    const host = hostWith({ trace: () => undefined, finish: () => undefined });
    const first = startModel(calls, task);
    calls.modelChunk(first, { type: 'tool_call', index: 0, id: 'c1', name: 'search', argsDelta: '{}' });
    modelCallDone(host, calls, first, { inputTokens: 100, outputTokens: 20 }, 0);
    // One tool call: the turn runs it by itself (ToolBegin), then the model is asked again.
    for (const step of ['TurnEnd', 'Model'] as const) moveTo(task.frame, step);
    const second = startModel(calls, task);
    modelCallDone(host, calls, second, { inputTokens: 7, outputTokens: 3 }, 0);
    expect(task.frame.usage).toEqual({ inputTokens: 107, outputTokens: 23 });
  });
});

describe('tool facts of a ToolBatch step (docs/spec.md §3.8, §5)', () => {
  it('a call that returns a tool error is a result, a call that throws a panic: the batch fails on the panic and raises one L4', () => {
    const h = new KernelWorld();
    h.queued('q1', 'look around');
    h.answer('q1', '', [{ name: 'search' }, { name: 'fetch' }]);
    const runs = h.openTools('q1').map((run) => run.callId);
    expect(runs).toHaveLength(2);
    const [search, fetch] = runs as [string, string];
    h.toolDone(search, 'no results', false);
    h.handle({ type: 'tool.failed', callId: fetch, error: 'segfault' });
    expect(h.events('tool.end')).toMatchObject([
      { task: 'q1', name: 'search', ok: false, result: 'no results', panicked: false },
      { task: 'q1', name: 'fetch', ok: false, result: 'segfault', panicked: true },
    ]);
    expect(h.replyOf('q1')).toEqual({ kind: 'failed', reply: 'processing error: tool fetch panicked' });
    expect(h.events('task.submitted').filter((e) => e.task === 'root:1')).toMatchObject([
      { class: 'interrupt', level: 4, kernel: true, source: 'kernel', channel: 'kernel' },
    ]);
    // The L4's text says the task panicked in a batch; each call's own error is in its tool.end.
    expect(h.modelCall('root:1').request.messages.at(-1)?.content).toBe(
      '[interrupt message] kernel event: task q1 panicked: tool panicked in a batch (task dropped, scheduler alive)',
    );
  });
});

describe('a fact that reaches the wrong step is named in its STEP assertion', () => {
  const host = hostWith();
  const cases: readonly (readonly [string, (calls: CallTracker) => void, string])[] = [
    [
      'model.done',
      (calls) => modelCallDone(host, calls, startModel(calls, taskAt()), { inputTokens: 1, outputTokens: 1 }, 0),
      'model.done for q1 arrived at its Prepare step, not at Model',
    ],
    [
      'model.failed',
      (calls) => modelCallFailed(host, calls, startModel(calls, taskAt()), 'error', 'down', 0),
      'model.failed for q1 arrived at its Prepare step, not at Model',
    ],
    [
      'a model timeout',
      (calls) => modelCallTimedOut(host, calls, startModel(calls, taskAt()), 0),
      'a model timeout for q1 arrived at its Prepare step, not at Model',
    ],
    [
      'a preemption cancel',
      (calls) => {
        startModel(calls, taskAt());
        preemptModelCall(host, calls, 0);
      },
      'a preemption cancel for q1 arrived at its Prepare step, not at Model',
    ],
    [
      'a ToolExec tool.done',
      (calls) => {
        calls.startTool(taskAt(), { id: 'c1', name: 'write', args: '{}' }, 0);
        toolCallDone(host, calls, 't1', true, 'written', 0);
      },
      'tool.done for q1 arrived at its Prepare step, not at ToolExec',
    ],
    [
      'a ToolExec tool.failed',
      (calls) => {
        calls.startTool(taskAt(), { id: 'c1', name: 'write', args: '{}' }, 0);
        toolCallPanicked(host, calls, 't1', 'boom', 0);
      },
      'tool.failed for q1 arrived at its Prepare step, not at ToolExec',
    ],
    [
      'a ToolBatch tool.done',
      (calls) => toolCallDone(host, calls, batchLeftBehind(calls), true, 'found', 0),
      'tool.done for q1 arrived at its TurnEnd step, not at ToolBatch',
    ],
    [
      'a ToolBatch tool.failed',
      (calls) => toolCallPanicked(host, calls, batchLeftBehind(calls), 'boom', 0),
      'tool.failed for q1 arrived at its TurnEnd step, not at ToolBatch',
    ],
  ];

  it.each(cases)('%s', (_fact, deliver, message) => {
    expect(() => deliver(newCalls())).toThrow(new AssertionError(`STEP: ${message}`));
  });
});
