/**
 * What one planted bug came to. Only `caught` passes: a missed bug is a gap in the tests, a stale one
 * a catalogue entry that no longer applies, an error a run that could not say either way.
 */
import type { FailedTest, TestRun } from './vitest-result.ts';

export type Outcome =
  | { readonly kind: 'caught'; readonly test: string; readonly message: string; readonly failures: number }
  | { readonly kind: 'missed'; readonly tests: number }
  | { readonly kind: 'stale'; readonly occurrences: number }
  | { readonly kind: 'error'; readonly reason: string };

export type OutcomeKind = Outcome['kind'];

/**
 * A test that already failed without the bug (the baseline) does not count as a catch: only failures that
 * the bug brought count, the first of them in vitest's order names the catching test.
 */
export function classifyRun(run: TestRun, baselineFailures: ReadonlySet<string>): Outcome {
  const fresh: FailedTest[] = run.failed.filter((f) => !baselineFailures.has(f.name));
  const first = fresh[0];
  if (first === undefined) return { kind: 'missed', tests: run.total };
  return { kind: 'caught', test: first.name, message: first.message, failures: fresh.length };
}

export function passed(outcome: Outcome): boolean {
  return outcome.kind === 'caught';
}
