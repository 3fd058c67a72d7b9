/**
 * The spans of a finished run, all at once: the simulator's (`sim run --otlp`), whose trace is read after
 * the run. The ids are salted with the scenario and the seed, so the same run gives the same spans, and
 * the same file bytes.
 */
import type { TraceEvent, Usage } from '../kernel/index.ts';
import { SpanBuilder, type ModelLabel } from './span-builder.ts';
import { SpanIds } from './span-ids.ts';
import type { SpanRecord } from './span-record.ts';

/** The simulator's fake model, as the GenAI attributes name it. */
export const SIM_MODEL: ModelLabel = { provider: 'homeagent.sim', model: 'fake' };

export function runSpans(
  events: readonly TraceEvent[],
  usage: ReadonlyMap<string, Usage>,
  salt: string,
  model: ModelLabel = SIM_MODEL,
): SpanRecord[] {
  const spans: SpanRecord[] = [];
  const builder = new SpanBuilder({ ids: new SpanIds(salt), model, usage, out: (span) => spans.push(span) });
  for (const event of events) builder.event(event);
  builder.finish();
  return spans;
}
