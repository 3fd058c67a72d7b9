/**
 * The Prepare step and the prefix rebase (docs/spec.md §3.2, §3.4, §3.5). The prefix is system prompt +
 * committed timeline + the task's input; everything after `prefixLen` is the task's own progress.
 */
import { INTERRUPT_MARK } from '../agent/context.ts';
import type { Message } from '../ports/provider.ts';
import type { Task } from '../task/task.ts';
import { consolidationMessages } from './consolidate.ts';
import type { PrepareHost, StepOutcome } from './host.ts';
import { moveTo } from './transitions.ts';

export function buildPrefix(host: PrepareHost, task: Task): Message[] {
  const messages: Message[] = [{ role: 'system', content: host.config.systemPrompt }, ...host.context.timeline()];
  // The interrupt mark is derived from the task, not stored in the messages, so a task suspended
  // before its Prepare ran still gets it.
  messages.push(
    task.isInterrupt ? { role: 'system', content: INTERRUPT_MARK + task.text } : { role: 'user', content: task.text },
  );
  return messages;
}

/**
 * Rebuilds the prefix from the current context and keeps the task's own tail (D1 = B: the task now
 * sees what an interrupt committed while it was suspended). A task that never prepared has no prefix.
 */
export function rebasePrefix(host: PrepareHost, task: Task): void {
  const frame = task.frame;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: consolidation and compress tasks are never suspended, so never rebased
  if (task.consolidation || task.compress) return;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: rebasing a task that never prepared builds what its Prepare builds next
  if (frame.prefixLen <= 0 || frame.prefixLen > frame.messages.length) return;
  const tail = frame.messages.slice(frame.prefixLen);
  const prefix = buildPrefix(host, task);
  frame.messages = prefix.concat(tail);
  frame.prefixLen = prefix.length;
}

export function stepPrepare(host: PrepareHost, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'Prepare', turn: frame.turn });
  // Stryker disable next-line ConditionalExpression,BlockStatement: the compress Model step replaces what Prepare wrote before any call
  if (task.compress) {
    // The compress request is built at its Model step, from the context as it is then (compress.ts).
    frame.messages = [];
    frame.prefixLen = 0;
  } else if (task.consolidation) {
    frame.messages = consolidationMessages(host, task);
    frame.prefixLen = frame.messages.length;
  } else if (frame.prefixLen > 0) rebasePrefix(host, task);
  else {
    frame.messages = buildPrefix(host, task);
    frame.prefixLen = frame.messages.length;
  }
  moveTo(frame, 'Model');
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Prepare' });
  return 'next';
}
