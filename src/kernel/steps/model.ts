/**
 * The Model step (docs/spec.md §2.4, §3.2, §3.6, §3.9): the only cancellable step. It sends the request and
 * waits; the stream's end decides between the final answer and a batch of tool calls. A cancelled
 * call appends nothing and takes no tool call; it costs one turn and leaves the cursor on Model, so
 * the request is rebuilt and re-sent when the task runs again.
 */
import { OVERFLOW_KEEP_RECENT, OVERFLOW_RATIO, OVERFLOW_TARGET_RATIO } from '../agent/context.ts';
import { lazySnapshot } from '../task/lazy-snapshot.ts';
import type { Message, ToolCall } from '../ports/provider.ts';
import type { ModelFailure } from '../protocol.ts';
import { OUTPUT_SEND_PREFIX } from '../channels/outputs.ts';
import type { Task } from '../task/task.ts';
import { consolidationDone } from './consolidate.ts';
import { compressDone, compressFailed, compressModel } from './compress.ts';
import type { ModelHost, StepOutcome, StepTrace } from './host.ts';
import { moveTo } from './transitions.ts';

/** The docs/spec.md §3.6 placeholders: the model continues after tool results, or finishes after output sends only. */
export const PLACEHOLDER_CONTINUE = 'continue based on the tool results above';
export const PLACEHOLDER_FINISH = 'if your reply is complete, return plain text to finish';

export function stepModel(host: ModelHost, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'Model', turn: frame.turn });
  if (task.compress) return compressModel(host, task, nowMs);
  const maxTurns = host.config.maxToolTurns;
  if (maxTurns > 0 && frame.turn >= maxTurns) {
    host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Model' });
    const reply =
      frame.lastText.trim().length > 0
        ? frame.lastText
        : `[system] maximum tool turns ${maxTurns} reached, task stopped`;
    host.finish(task, { kind: 'done', reply }, nowMs);
    return 'ended';
  }
  const overflowing = host.context.accumulatedTokens() >= OVERFLOW_RATIO * host.config.contextWindowTokens;
  if (host.role.prunesOnOverflow && !task.consolidation && overflowing) {
    host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Model' });
    return handleOverflow(host, task, 'window', nowMs);
  }
  host.startModel(
    task,
    {
      agent: host.agentId,
      task: task.id,
      replyIndex: frame.completedCalls,
      messages: requestMessages(frame.messages),
      tools: task.consolidation ? [] : host.toolSpecs(),
      maxTokens: host.config.maxTokens,
    },
    nowMs,
  );
  return 'wait';
}

/** The stream ended normally: a final answer, or a batch of tool calls for the next steps. */
export function modelDone(host: ModelHost, task: Task, text: string, calls: ToolCall[], nowMs: number): StepOutcome {
  const frame = task.frame;
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Model' });
  frame.completedCalls += 1;
  frame.lastText = text;
  if (task.consolidation) return consolidationDone(host, task, text, nowMs);
  if (task.compress) return compressDone(host, task, text, nowMs);
  if (calls.length === 0) {
    host.finish(task, { kind: 'done', reply: text }, nowMs);
    return 'ended';
  }
  frame.pending = calls;
  frame.toolIdx = 0;
  frame.outcomes = [];
  frame.assistantWritten = false;
  const batch = calls.length >= 2 && calls.every((c) => host.toolSpec(c.name)?.parallelSafe === true);
  moveTo(frame, batch ? 'ToolBatch' : 'ToolBegin');
  return 'next';
}

/** The call failed (error, malformed stream, timeout, or an upstream context-full). */
export function modelFailed(
  host: ModelHost,
  task: Task,
  failure: ModelFailure,
  error: string,
  nowMs: number,
): StepOutcome {
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Model' });
  task.frame.completedCalls += 1;
  if (task.compress) return compressFailed(host, task, nowMs);
  if (failure === 'context_full' && host.role.prunesOnOverflow && !task.consolidation) {
    return handleOverflow(host, task, 'upstream', nowMs);
  }
  host.finish(task, { kind: 'failed', reply: `processing error: model call failed: ${error}` }, nowMs);
  return 'ended';
}

/** The call was cancelled by an armed preemption: one turn is spent, the cursor stays on Model. */
export function modelCancelled(host: StepTrace, task: Task, nowMs: number): void {
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Model' });
  task.frame.turn += 1;
}

/**
 * Root overflow (docs/spec.md §3.9): prune the oldest events down to 0.8 × window (keeping the 10 newest),
 * raise one kernel L4, and go back to Prepare; a second overflow in the same task fails it. `window`:
 * the context reached 1.25 × the window before the call; `upstream`: the call itself failed with
 * `context_full`, and the task goes back with turn += 1 (docs/spec.md §3.2).
 */
function handleOverflow(host: ModelHost, task: Task, cause: 'window' | 'upstream', nowMs: number): StepOutcome {
  const frame = task.frame;
  frame.overflows += 1;
  if (frame.overflows >= 2) {
    host.finish(task, { kind: 'failed', reply: 'processing error: context overflow' }, nowMs);
    return 'ended';
  }
  const target = OVERFLOW_TARGET_RATIO * host.config.contextWindowTokens;
  const pruned = host.context.pruneOldest(target, OVERFLOW_KEEP_RECENT);
  host.trace(nowMs, { type: 'context.overflow', task: task.id, pruned, count: frame.overflows });
  // Recursion guard, as for panics: a kernel-created task that overflows raises no new kernel L4,
  // otherwise a context that pruning cannot shrink would chain notices forever.
  if (!task.kernel) {
    host.raiseKernelInterrupt(
      task,
      'overflow',
      `[kernel] context overflow: pruned ${pruned} old events; pruned content must be queried explicitly`,
      nowMs,
    );
  }
  if (cause === 'upstream') frame.turn += 1;
  moveTo(frame, 'Prepare');
  return 'next';
}

/**
 * The request's messages (docs/spec.md §3.6): the task's messages and, if the last one is an assistant or
 * tool message, a user placeholder asking the model to continue (or to finish, after a batch of only
 * output sends). The placeholder goes into the request only, never into the frame, so no earlier
 * placeholder is ever left to remove; and since the frame's messages are only appended to, the
 * request takes an O(1) snapshot of them rather than a copy, so a tool turn costs the same however
 * many turns came before it.
 */
export function requestMessages(messages: readonly Message[]): readonly Message[] {
  const last = messages[messages.length - 1];
  // Stryker disable next-line ConditionalExpression: a frame never ends with an assistant message, so only the tool test decides
  if (last === undefined || (last.role !== 'assistant' && last.role !== 'tool'))
    return lazySnapshot(messages, messages.length);
  const placeholder: Message = {
    role: 'user',
    content: onlyOutputSends(messages) ? PLACEHOLDER_FINISH : PLACEHOLDER_CONTINUE,
  };
  return lazySnapshot(messages, messages.length, placeholder);
}

/**
 * Whether the last batch only delivered output: every call an `output_send__<x>`,
 * where an `output_send__<x>_help` call asks how to send and so is not a delivery.
 */
function onlyOutputSends(messages: readonly Message[]): boolean {
  // Stryker disable next-line EqualityOperator: index 0 is the system prompt, never an assistant message
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the nearest assistant message before a tool message carries that tool's call
      return calls.length > 0 && calls.every((c) => c.name.startsWith(OUTPUT_SEND_PREFIX) && !c.name.endsWith('_help'));
    }
  }
  // Stryker disable next-line BooleanLiteral: unreachable, a frame ending in a tool message always has an assistant message
  return false;
}
