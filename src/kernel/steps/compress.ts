/**
 * A child's compress task (docs/spec.md §10.5). Theory of operation: the task is critical as a whole and runs
 * Prepare → Model like any task, but its request asks the child's own model to summarise the events
 * older than the ones the plan keeps (the newest within 0.5 × the window, at most 20). The answer
 * replaces them with one summary event; if the call fails they are dropped and the count is traced.
 * With nothing older, no model call is made and the task succeeds at once. Either way the processing
 * table is cleared and the task commits no turn of its own.
 */
import { planCompress, type CompressPlan } from '../children/compress-plan.ts';
import type { Message } from '../ports/provider.ts';
import type { Task } from '../task/task.ts';
import type { CompressHost, ModelCalls, StepOutcome } from './host.ts';

export const COMPRESS_CHANNEL = '_compress_';
export const COMPRESS_PROMPT =
  'Summarise the conversation below so the summary can replace it: keep names, decisions, open requests ' +
  'and commitments; answer with the summary text only.';

export function compressPlanOf(host: CompressHost): CompressPlan {
  return planCompress(host.context.committed(), host.compressWindow());
}

/** The summarising request: the instruction, then the older events one per line. */
export function compressMessages(host: CompressHost, plan: CompressPlan): Message[] {
  const older = host.context.committed().slice(0, plan.older);
  const lines = older.map((e) => `${e.kind}: ${e.input} => ${e.response}`);
  return [
    { role: 'system', content: COMPRESS_PROMPT },
    { role: 'user', content: lines.join('\n') },
  ];
}

/**
 * The compress task's Model step: with nothing older than the kept events, compress changes nothing
 * and succeeds without a model call; otherwise the child's own model is asked once, without tools.
 */
export function compressModel(host: CompressHost & ModelCalls, task: Task, nowMs: number): StepOutcome {
  const plan = compressPlanOf(host);
  if (plan.older === 0) {
    host.trace(nowMs, { type: 'step.end', task: task.id, step: 'Model' });
    host.compressed(task, plan, null, nowMs);
    host.finish(task, { kind: 'done', reply: 'compressed: nothing older to summarise' }, nowMs);
    return 'ended';
  }
  const frame = task.frame;
  frame.messages = compressMessages(host, plan);
  frame.prefixLen = frame.messages.length;
  host.startModel(
    task,
    // Stryker disable next-line MethodExpression: the frame's messages are replaced after the call, never changed in place
    {
      agent: host.agentId,
      task: task.id,
      replyIndex: frame.completedCalls,
      messages: frame.messages.slice(),
      tools: [],
      maxTokens: host.config.maxTokens,
    },
    nowMs,
  );
  return 'wait';
}

export function compressDone(host: CompressHost, task: Task, summary: string, nowMs: number): StepOutcome {
  const plan = compressPlanOf(host);
  host.compressed(task, plan, summary, nowMs);
  host.finish(task, { kind: 'done', reply: `compressed: ${plan.older} events summarised, ${plan.kept} kept` }, nowMs);
  return 'ended';
}

/** The summarising call failed: the older events are dropped, and the count is traced. */
export function compressFailed(host: CompressHost, task: Task, nowMs: number): StepOutcome {
  const plan = compressPlanOf(host);
  host.compressed(task, plan, null, nowMs);
  host.finish(
    task,
    { kind: 'done', reply: `compressed: ${plan.older} events dropped (summary failed), ${plan.kept} kept` },
    nowMs,
  );
  return 'ended';
}
