/**
 * The zod schema of a sweep summary as `sim merge` reads it back from disk (STYLE rule 6: a file is
 * untrusted input, checked at the boundary). Unknown keys are allowed and dropped, so a summary written
 * by a newer version with extra fields still merges on the fields this version knows.
 */
import { z } from 'zod';
import { REACHED_STATES } from '../sim/report/index.ts';
import type { SweepSummary } from './sweep-summary.ts';

const count = z.number().int().min(0);
const ms = z.number().finite().min(0);

const failure = z.object({
  seed: count,
  firstFailure: z.string().nullable(),
  traceHash: z.string().nullable(),
  command: z.string(),
  swarm: z.array(z.string()).optional(),
});

export const sweepSummarySchema = z.object({
  summaryVersion: z.literal(1, {
    error: 'summaryVersion must be 1: write the summary with `homeagent sim sweep --json` of this version',
  }),
  scenario: z.string(),
  seeds: z.object({ from: count, to: count }),
  shard: z.object({ index: count.min(1), count: count.min(1) }),
  workers: count,
  runs: count,
  failures: z.array(failure),
  runsPerSecond: ms,
  simulatedToWall: ms.nullable(),
  hashes: z.record(z.string().regex(/^[0-9]+$/), z.string().nullable()),
  shuffleTies: z.boolean(),
  wallMs: ms,
  virtualMs: ms,
  runsWallMs: ms,
  mergedFrom: count.min(1),
  swarm: z.boolean(),
  reached: z.record(z.enum(REACHED_STATES), count),
  events: count,
  eventsPerSecond: ms,
});

/** Keys the schema checks; zod's output is the value the type describes. */
export function parseSweepSummary(
  value: unknown,
): { ok: true; summary: SweepSummary } | { ok: false; problems: { path: string; message: string }[] } {
  const parsed = sweepSummarySchema.safeParse(value);
  if (parsed.success) return { ok: true, summary: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  };
}
