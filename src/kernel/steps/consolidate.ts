/**
 * Consolidation (docs/spec.md §3.7): one model call extracts memory triples from the recent turns; the answer
 * is parsed at the boundary (malformed answers are counted and skipped, never crash) and committed to
 * the agent's graph memory. The task is critical as a whole, is never stop-marked, sends nothing on
 * an output channel and commits nothing to the conversation context.
 */
import { commitCapped } from '../memory/rules.ts';
import { MemoryError } from '../ports/graph-memory.ts';
import type { Message } from '../ports/provider.ts';
import type { Task } from '../task/task.ts';
import type { ConsolidationHost, PrepareHost, StepOutcome } from './host.ts';

export const CONSOLIDATION_PROMPT =
  'Extract durable facts from the conversation below as JSON: ' +
  '{"triples": [{"subject": "...", "relation": "...", "object": "...", "sentence": "..."}]}. ' +
  'Answer with the JSON object only.';

/** How many recent context events a consolidation reads when `consolidateEveryTurns` is 0. */
const RECENT_EVENTS_DEFAULT = 20;

/** The extracting request: the instruction, the recent turns, then the task's own text. */
export function consolidationMessages(host: PrepareHost, task: Task): Message[] {
  const recentEvents = Math.max(host.config.consolidateEveryTurns, 0) || RECENT_EVENTS_DEFAULT;
  const recent = host.context.recentTurnMessages(recentEvents);
  return [{ role: 'system', content: CONSOLIDATION_PROMPT }, ...recent, { role: 'user', content: task.text }];
}

/** The model answered: parse, commit, finish with "consolidated: A added, S skipped". */
export function consolidationDone(host: ConsolidationHost, task: Task, text: string, nowMs: number): StepOutcome {
  const memory = host.memory;
  if (memory === null) {
    host.trace(nowMs, {
      type: 'memory.consolidate',
      task: task.id,
      added: 0,
      skipped: 0,
      malformed: 'no graph memory',
    });
    host.finish(task, { kind: 'done', reply: consolidatedReply(0, 0) }, nowMs);
    return 'ended';
  }
  const parsed = memory.parsers.consolidationAnswer(text);
  if (!parsed.ok) {
    host.noteMalformedConsolidation();
    host.trace(nowMs, { type: 'memory.consolidate', task: task.id, added: 0, skipped: 0, malformed: parsed.error });
    host.finish(task, { kind: 'done', reply: consolidatedReply(0, 0) }, nowMs);
    return 'ended';
  }
  const session = `consolidation/${task.id}`;
  let result;
  try {
    result = commitCapped(memory.store, parsed.value, session, host.committedTurns(), nowMs);
  } catch (err) {
    if (!(err instanceof MemoryError)) throw err;
    host.finish(task, { kind: 'failed', reply: `processing error: memory error: ${err.message}` }, nowMs);
    return 'ended';
  }
  host.memoryCommitted(task, session, result.added, result.skipped, nowMs);
  host.trace(nowMs, {
    type: 'memory.consolidate',
    task: task.id,
    added: result.added,
    skipped: result.skipped,
    malformed: null,
  });
  host.finish(task, { kind: 'done', reply: consolidatedReply(result.added, result.skipped) }, nowMs);
  return 'ended';
}

/** docs/spec.md §3.7: exactly this reply; why nothing was added (no memory, a malformed answer) is traced and counted. */
function consolidatedReply(added: number, skipped: number): string {
  return `consolidated: ${added} added, ${skipped} skipped`;
}
