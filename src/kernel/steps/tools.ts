/**
 * Tool steps (docs/spec.md §3.2, §3.8): ToolBegin takes the next call and refuses what cannot run; ToolExec
 * runs one call inside a critical section; ToolAfter appends the assistant and tool messages;
 * ToolBatch runs a batch of parallel-safe calls together, critical as a whole; TurnEnd closes a turn.
 * A tool error (`ok: false`) is data and the task continues; a throw is a panic and fails the task.
 */
import type { ToolCall } from '../ports/provider.ts';
import { callAt, outcomeAt, type Task, type ToolOutcome } from '../task/task.ts';
import { truncateCodePoints } from '../tokens.ts';
import type { BuiltinRun } from '../builtins/builtins.ts';
import type { CriticalSections, StepOutcome, StepTrace, ToolCatalog, ToolHost } from './host.ts';
import { moveTo } from './transitions.ts';
import type { ToolResult } from '../ports/tool-runner.ts';

/** How much of a result the trace keeps (the report shows the first 500 code points). */
const TRACE_RESULT_MAX = 500;

/** How a tool call ended, as `tool.end` records it: a result (ok or a tool error), or a panic (the tool threw). */
export interface ToolEndResult extends ToolResult {
  readonly panicked: boolean;
}

export function stepToolBegin(host: ToolHost, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'ToolBegin', turn: frame.turn });
  const call = frame.pending[frame.toolIdx];
  if (call === undefined) {
    moveTo(frame, 'TurnEnd');
  } else {
    frame.toolsUsed.push(call.name);
    const refusal = refuseCall(host, call);
    if (refusal === null) moveTo(frame, 'ToolExec');
    else {
      recordImmediate(host, task, frame.toolIdx, call, refusal, nowMs);
      moveTo(frame, 'ToolAfter');
    }
  }
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'ToolBegin' });
  return 'next';
}

export function stepToolExec(host: ToolHost, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  const call = callAt(frame, frame.toolIdx);
  host.enterCritical(nowMs);
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'ToolExec', turn: frame.turn });
  host.trace(nowMs, { type: 'tool.start', task: task.id, callId: call.id, name: call.name, args: call.args });
  const run = host.builtin(call.name);
  if (run === undefined) {
    host.startTool(task, call, nowMs);
    return 'wait';
  }
  // A built-in completes in this reaction: the critical section opens and closes around it.
  const result = runGuarded(host, task, call, run, nowMs);
  if (result === null) return 'ended';
  return toolExecDone(host, task, result.ok, result.output, nowMs);
}

/** Runs a built-in; an exception escaping it is a panic like any tool's (null: the task ended). */
function runGuarded(host: ToolHost, task: Task, call: ToolCall, run: BuiltinRun, nowMs: number): ToolResult | null {
  try {
    return host.runBuiltin(task, call, run, nowMs);
  } catch (err) {
    host.panicTool(task, call, err instanceof Error ? err.message : String(err), nowMs);
    return null;
  }
}

/** A ToolExec call returned (ok or tool error). */
export function toolExecDone(
  host: StepTrace & CriticalSections,
  task: Task,
  ok: boolean,
  output: string,
  nowMs: number,
): StepOutcome {
  const frame = task.frame;
  const call = callAt(frame, frame.toolIdx);
  traceToolEnd(host, task, call, { ok, output, panicked: false }, nowMs);
  frame.outcomes[frame.toolIdx] = { call, ok, output };
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'ToolExec' });
  host.leaveCritical(nowMs);
  moveTo(frame, 'ToolAfter');
  return 'next';
}

export function stepToolAfter(host: StepTrace, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'ToolAfter', turn: frame.turn });
  appendToolMessage(task, outcomeAt(frame, frame.toolIdx));
  frame.toolIdx += 1;
  moveTo(frame, 'ToolBegin');
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'ToolAfter' });
  return 'next';
}

/**
 * Starts every call of a parallel-safe batch. Calls refused up front (malformed arguments) are
 * recorded at once, built-ins run at once; the step waits for the rest. Returns the indexes that went
 * to the ToolRunner and the names of built-ins that panicked.
 */
export function stepToolBatch(host: ToolHost, task: Task, nowMs: number): { started: number[]; panics: string[] } {
  const frame = task.frame;
  host.enterCritical(nowMs);
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'ToolBatch', turn: frame.turn });
  const started: number[] = [];
  const panics: string[] = [];
  frame.pending.forEach((call, index) => {
    frame.toolsUsed.push(call.name);
    const refusal = refuseCall(host, call);
    if (refusal !== null) {
      recordImmediate(host, task, index, call, refusal, nowMs);
      return;
    }
    host.trace(nowMs, { type: 'tool.start', task: task.id, callId: call.id, name: call.name, args: call.args });
    const run = host.builtin(call.name);
    if (run === undefined) {
      started.push(index);
      return;
    }
    try {
      const result = host.runBuiltin(task, call, run, nowMs);
      toolBatchResult(host, task, index, { ok: result.ok, output: result.output, panicked: false }, nowMs);
    } catch (err) {
      const output = err instanceof Error ? err.message : String(err);
      toolBatchResult(host, task, index, { ok: false, output, panicked: true }, nowMs);
      panics.push(call.name);
    }
  });
  for (const index of started) host.startTool(task, callAt(frame, index), nowMs);
  return { started, panics };
}

/** One call of a batch returned. */
export function toolBatchResult(host: StepTrace, task: Task, index: number, end: ToolEndResult, nowMs: number): void {
  const frame = task.frame;
  const call = callAt(frame, index);
  traceToolEnd(host, task, call, end, nowMs);
  frame.outcomes[index] = { call, ok: end.ok, output: end.output };
}

/** Every call of the batch returned: append the messages in call order and close the turn. */
export function toolBatchComplete(host: StepTrace & CriticalSections, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  for (const outcome of frame.outcomes) appendToolMessage(task, outcome);
  frame.toolIdx = frame.pending.length;
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'ToolBatch' });
  host.leaveCritical(nowMs);
  moveTo(frame, 'TurnEnd');
  return 'next';
}

export function stepTurnEnd(host: StepTrace, task: Task, nowMs: number): StepOutcome {
  const frame = task.frame;
  host.trace(nowMs, { type: 'step.begin', task: task.id, step: 'TurnEnd', turn: frame.turn });
  frame.turn += 1;
  moveTo(frame, 'Model');
  host.trace(nowMs, { type: 'step.end', task: task.id, step: 'TurnEnd' });
  return 'next';
}

export function traceToolEnd(host: StepTrace, task: Task, call: ToolCall, end: ToolEndResult, nowMs: number): void {
  host.trace(nowMs, {
    type: 'tool.end',
    task: task.id,
    callId: call.id,
    name: call.name,
    ok: end.ok,
    result: truncateCodePoints(end.output, TRACE_RESULT_MAX),
    panicked: end.panicked,
  });
}

/** Why a call cannot run (unknown tool, arguments that are not a JSON object), or null. */
function refuseCall(host: Pick<ToolCatalog, 'knowsTool'>, call: ToolCall): string | null {
  if (!host.knowsTool(call.name)) return `unknown tool ${call.name}`;
  const trimmed = call.args.trim();
  if (trimmed.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return `invalid arguments for ${call.name}: expected a JSON object`;
    }
    return null;
  } catch (err) {
    return `invalid arguments for ${call.name}: ${(err as Error).message}`;
  }
}

function recordImmediate(
  host: StepTrace,
  task: Task,
  index: number,
  call: ToolCall,
  error: string,
  nowMs: number,
): void {
  host.trace(nowMs, { type: 'tool.start', task: task.id, callId: call.id, name: call.name, args: call.args });
  traceToolEnd(host, task, call, { ok: false, output: error, panicked: false }, nowMs);
  task.frame.outcomes[index] = { call, ok: false, output: error };
}

/** One assistant message carries the whole batch, written before its first tool message. */
function appendToolMessage(task: Task, outcome: ToolOutcome): void {
  const frame = task.frame;
  if (!frame.assistantWritten) {
    // Stryker disable next-line MethodExpression: frame.pending is replaced by the next batch, never changed in place
    frame.messages.push({ role: 'assistant', content: frame.lastText, toolCalls: frame.pending.slice() });
    frame.assistantWritten = true;
  }
  frame.messages.push({
    role: 'tool',
    content: outcome.ok ? outcome.output : `error: ${outcome.output}`,
    toolCallId: outcome.call.id,
  });
}
