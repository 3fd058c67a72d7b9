/**
 * The names an `expect` block may use (docs/spec.md §12.2 "Expect"): report task fields, counters and
 * invariants. A name outside these lists can never be matched by a run, so the schema refuses it with
 * its path instead of letting the run report a failed expectation that no fix of the kernel could pass.
 */
import { type InvariantName, newCounters } from '../../kernel/index.ts';
import type { ReportTask } from '../report/types.ts';

/** The fields of a report task (docs/spec.md §12.3), in its order. */
export const TASK_FIELDS = [
  'agent',
  'movedFrom',
  'source',
  'channel',
  'outputChannel',
  'class',
  'level',
  'effectiveLevelMax',
  'terminal',
  'reason',
  'terminalCount',
  'preemptCount',
  'suspends',
  'resumes',
  'suspensions',
  'modelCalls',
  'modelCallsCancelled',
  'modelCallLog',
  'tools',
  'toolCalls',
  'submittedAt',
  'startedAt',
  'finishedAt',
  'reply',
] as const satisfies readonly (keyof ReportTask)[];
// The compiler proves TASK_FIELDS lists every report task field: this line breaks when one is added.
const taskFieldsComplete: [Exclude<keyof ReportTask, (typeof TASK_FIELDS)[number]>] extends [never] ? true : false =
  true;
void taskFieldsComplete;

/**
 * Every counter of the report: the scheduler's counters, read from a fresh set so that a counter the
 * kernel adds is known here at once. The per-level ones are those whose value is keyed by level.
 */
const FRESH_COUNTERS: readonly (readonly [string, unknown])[] = Object.entries(newCounters());
export const COUNTER_NAMES: readonly string[] = FRESH_COUNTERS.map(([name]) => name);
export const PER_LEVEL_COUNTERS: ReadonlySet<string> = new Set(
  FRESH_COUNTERS.filter(([, value]) => typeof value === 'object').map(([name]) => name),
);

/**
 * The invariants a run can report: the monitors' names (with the checked monitor's `COOLDOWN` and
 * `LATE`), plus the two the simulator adds itself (`RUNTIME`: the simulated runtime left something
 * open; `LIMIT`: a run limit of `limits` ended it).
 */
export const INVARIANT_NAMES = [
  'I1',
  'I2',
  'I4',
  'I5',
  'STACK',
  'LIFO',
  'STRICT',
  'QUEUED',
  'L4',
  'DRAIN',
  'BALANCE',
  'CHILD',
  'COOLDOWN',
  'LATE',
  'DURABLE',
  'RUNTIME',
  'LIMIT',
] as const satisfies readonly (InvariantName | 'COOLDOWN' | 'LATE' | 'DURABLE' | 'RUNTIME' | 'LIMIT')[];
// The compiler proves INVARIANT_NAMES lists every monitor invariant: this line breaks when one is added.
const invariantsComplete: [Exclude<InvariantName, (typeof INVARIANT_NAMES)[number]>] extends [never] ? true : false =
  true;
void invariantsComplete;
