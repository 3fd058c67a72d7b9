/**
 * `sim sweep --shrink [dir]` (docs/spec.md §12.1): the first failing seed's scenario shrunk
 * with fast-check (sim/shrink/) and written as a regression file under `dir` (default
 * scenarios/regressions/), with its seed and the failure it showed.
 *
 * Only the first failing seed is shrunk: each try of a shrink is a whole run, and one minimal file is
 * what a developer commits. The shrink starts from the file as written on disk (not the normalized
 * scenario), so the regression reads like the scenario it came from.
 */
import { readFileSync } from 'node:fs';
import { planSize, type Json } from '../sim/shrink/plan.ts';
import { regressionDocument, writeRegression } from '../sim/shrink/regression.ts';
import { shrinkScenario, type RunFlags } from '../sim/shrink/shrink.ts';

export interface ShrinkOutcome {
  readonly seed: number;
  /** The regression file written; null when the seed no longer failed when run again. */
  readonly path: string | null;
  readonly failure: string | null;
  readonly runs: number;
  readonly before: ReturnType<typeof planSize>;
  readonly after: ReturnType<typeof planSize> | null;
}

export async function shrinkFailingSeed(file: string, flags: RunFlags, dir: string): Promise<ShrinkOutcome> {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const before = planSize(doc);
  const result = await shrinkScenario(doc, flags);
  if (result === null) return { seed: flags.seed, path: null, failure: null, runs: 1, before, after: null };
  const { name, doc: regression } = regressionDocument(result, flags, { from: file, by: 'sim sweep --shrink' }, dir);
  const path = writeRegression(dir, name, regression);
  return {
    seed: flags.seed,
    path,
    failure: `${result.signature.name}: ${result.signature.message}`,
    runs: result.runs,
    before,
    after: planSize(result.scenario),
  };
}

export function shrinkLines(s: ShrinkOutcome): string {
  if (s.path === null || s.after === null)
    return `shrink: seed ${s.seed} did not fail when run again; nothing written\n`;
  const size = (p: ShrinkOutcome['before']): string =>
    `${p.inputs} inputs, ${p.generated} generated, ${p.events} events`;
  return `shrink: seed ${s.seed} (${s.failure ?? ''})\n  from ${size(s.before)} to ${size(s.after)} in ${s.runs} runs\n  wrote ${s.path}\n`;
}
