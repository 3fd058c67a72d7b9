/**
 * How facts from the outside world resume an agent's running task. Theory of operation:
 *
 * A fact names a call. The CallTracker checks that the call is live and releases it; these functions
 * then hand its result to the step that was waiting. A model call's end goes to the Model step (done,
 * failed, a malformed stream, a timeout); a tool's result goes to its ToolExec step, or to its
 * ToolBatch step, which completes once its last call has returned. An interrupt that arms while the
 * task streams from the model cancels the call at once (docs/spec.md §2.3 step 2). A tool that throws is a
 * panic: the task fails, and the agent raises a kernel L4 (on itself unless the task is itself an L4,
 * or on its parent for a child, docs/spec.md §5).
 *
 * Each function first checks that its fact reaches the step waiting for it (`assertAtStep`): a model
 * fact a Model step, a tool fact a ToolExec or ToolBatch step. The functions see the agent only
 * through the step capabilities they need, beside its CallTracker, and hold no state.
 */
import type { BatchWait, CallTracker } from './calls.ts';
import type { ModelFailure } from '../protocol.ts';
import type { ToolCall, Usage } from '../ports/provider.ts';
import type { CriticalSections, ModelHost, StepTrace, TaskEnding } from '../steps/host.ts';
import { modelCancelled, modelDone, modelFailed } from '../steps/model.ts';
import { toolBatchComplete, toolBatchResult, toolExecDone, traceToolEnd } from '../steps/tools.ts';
import { assertAtStep } from '../steps/transitions.ts';
import { callAt, type Task } from '../task/task.ts';
import type { RequestedToolCall } from '../trace/vocabulary.ts';

/** What a tool's fact needs: the trace, the critical section it closes, and the task's end on a panic. */
type ToolFactHost = StepTrace & CriticalSections & TaskEnding;

export function modelCallDone(host: ModelHost, calls: CallTracker, callId: string, usage: Usage, nowMs: number): void {
  const w = calls.endModel(callId);
  const task = w.task;
  assertAtStep(task, 'Model', 'model.done');
  task.frame.usage = {
    inputTokens: task.frame.usage.inputTokens + usage.inputTokens,
    outputTokens: task.frame.usage.outputTokens + usage.outputTokens,
  };
  const result = w.stream.finish(callId);
  if (!result.ok) {
    modelCallFailedNow(host, task, callId, 'malformed', result.error, nowMs);
    return;
  }
  host.trace(nowMs, {
    type: 'model.end',
    task: task.id,
    callId,
    outcome: 'done',
    toolCalls: result.calls.map(requested),
    error: null,
  });
  modelDone(host, task, result.text, result.calls, nowMs);
}

export function modelCallFailed(
  host: ModelHost,
  calls: CallTracker,
  callId: string,
  failure: ModelFailure,
  error: string,
  nowMs: number,
): void {
  const w = calls.endModel(callId);
  assertAtStep(w.task, 'Model', 'model.failed');
  modelCallFailedNow(host, w.task, callId, failure, error, nowMs);
}

/** The timeout timer of model call `callId` fired; when that call is still live, it fails. */
export function modelCallTimedOut(host: ModelHost, calls: CallTracker, callId: string, nowMs: number): void {
  const w = calls.timedOut(callId);
  if (w === null) return;
  assertAtStep(w.task, 'Model', 'a model timeout');
  modelCallFailedNow(host, w.task, w.callId, 'error', `no completion within ${host.config.modelTimeoutMs} ms`, nowMs);
}

function modelCallFailedNow(
  host: ModelHost,
  task: Task,
  callId: string,
  failure: ModelFailure,
  error: string,
  nowMs: number,
): void {
  host.trace(nowMs, { type: 'model.end', task: task.id, callId, outcome: 'failed', toolCalls: [], error });
  modelFailed(host, task, failure, error, nowMs);
}

/** An interrupt armed a preemption: a streaming Model step is cancelled now (docs/spec.md §2.3 step 2). */
export function preemptModelCall(host: StepTrace, calls: CallTracker, nowMs: number): void {
  const w = calls.liveModel();
  if (w === null) return;
  assertAtStep(w.task, 'Model', 'a preemption cancel');
  calls.cancelModel(w.callId, w.task, 'preempt', nowMs);
  modelCancelled(host, w.task, nowMs);
}

export function toolCallDone(
  host: ToolFactHost,
  calls: CallTracker,
  callId: string,
  ok: boolean,
  output: string,
  nowMs: number,
): void {
  const ended = calls.endTool(callId, 'result');
  if (ended.kind === 'tool') {
    assertAtStep(ended.task, 'ToolExec', 'tool.done');
    toolExecDone(host, ended.task, ok, output, nowMs);
    return;
  }
  assertAtStep(ended.batch.task, 'ToolBatch', 'tool.done');
  toolBatchResult(host, ended.batch.task, ended.index, { ok, output, panicked: false }, nowMs);
  batchMaybeComplete(host, calls, ended.batch, nowMs);
}

/** The tool threw: a panic. The task fails and a kernel L4 is raised, unless it is itself an L4. */
export function toolCallPanicked(
  host: ToolFactHost,
  calls: CallTracker,
  callId: string,
  error: string,
  nowMs: number,
): void {
  const ended = calls.endTool(callId, 'panic');
  if (ended.kind === 'tool') {
    const task = ended.task;
    assertAtStep(task, 'ToolExec', 'tool.failed');
    panicRunningTool(host, task, callAt(task.frame, task.frame.toolIdx), error, nowMs);
    return;
  }
  assertAtStep(ended.batch.task, 'ToolBatch', 'tool.failed');
  toolBatchResult(host, ended.batch.task, ended.index, { ok: false, output: error, panicked: true }, nowMs);
  batchMaybeComplete(host, calls, ended.batch, nowMs);
}

/** Once the batch's last call has returned, the ToolBatch step completes, or fails on its first panic. */
export function batchMaybeComplete(host: ToolFactHost, calls: CallTracker, batch: BatchWait, nowMs: number): void {
  if (!calls.settleBatch(batch)) return;
  const firstPanic = batch.panics[0];
  if (firstPanic === undefined) {
    toolBatchComplete(host, batch.task, nowMs);
    return;
  }
  host.trace(nowMs, { type: 'step.end', task: batch.task.id, step: 'ToolBatch' });
  failPanicked(host, batch.task, firstPanic, 'tool panicked in a batch', nowMs);
}

/** A tool threw (a runner rejection or a built-in exception): a panic of the running task. */
export function panicRunningTool(
  host: StepTrace & TaskEnding,
  task: Task,
  call: ToolCall,
  error: string,
  nowMs: number,
): void {
  traceToolEnd(host, task, call, { ok: false, output: error, panicked: true }, nowMs);
  host.trace(nowMs, { type: 'step.end', task: task.id, step: task.frame.step });
  failPanicked(host, task, call.name, error, nowMs);
}

function failPanicked(host: TaskEnding, task: Task, toolName: string, error: string, nowMs: number): void {
  host.finish(task, { kind: 'failed', reply: `processing error: tool ${toolName} panicked` }, nowMs);
  // The agent applies the recursion guard (docs/spec.md §5: a panicking L4 raises no new L4 on the same
  // agent); a child's panic goes to its parent even when its task was an L4, so it is not decided here.
  host.raiseKernelInterrupt(
    task,
    'panic',
    `kernel event: task ${task.id} panicked: ${error} (task dropped, scheduler alive)`,
    nowMs,
  );
}

function requested(call: ToolCall): RequestedToolCall {
  return { callId: call.id, name: call.name, args: call.args };
}
