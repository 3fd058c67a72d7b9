/**
 * The discrete-event simulator's entry point (ARCHITECTURE "Simulator"): one scenario, one seed, one
 * report. Theory of operation:
 *
 * A scenario using a feature that has not landed yet is refused whole (`unusable`), never half-run.
 * Otherwise the run gets a world of its own (world.ts: the composition root — clock, kernel, Runtime,
 * fakes, sinks, agenda), the run loop drives it to its end (run-loop.ts: steps and drains, drain.ts),
 * and report/finalize.ts turns the run's record into the report and its verdict. All simulator state
 * belongs to that one run.
 *
 * The outcome carries the record beside the report, so a command that checks more around the run
 * (`sim run --check-determinism`, `expect.exitCode`) finalizes it again with those results as data
 * instead of editing the report.
 */
import { exitCodeOf, finalizeReport, type Report, type RunRecord } from './report/index.ts';
import { runToEnd } from './run-loop.ts';
import type { Problem, Scenario } from './scenario/index.ts';
import type { SimOptions } from './world.ts';

export { unexpectedViolations } from './report/index.ts';
export { scenarioKernelConfig, type SimOptions } from './world.ts';
export type { SnapshotCut } from './kernel-door.ts';

export type SimOutcome =
  | {
      readonly kind: 'report';
      /** The report with the scenario's own checks (no command-level ones). */
      readonly report: Report;
      readonly exitCode: 0 | 1;
      /** What the report was made from, for `finalizeReport` with command-level checks. */
      readonly record: RunRecord;
    }
  | { readonly kind: 'unusable'; readonly problems: Problem[] };

/**
 * Features a scenario may name that this simulator cannot run yet: such a scenario is refused whole,
 * never half-run. Every feature of the scenario format (docs/spec.md §12.2) runs today, so the list is empty;
 * the commands keep asking, so a future partial feature has one place to say so.
 */
export function unsupportedFeatures(_s: Scenario): Problem[] {
  return [];
}

export async function runScenario(scenario: Scenario, opts: SimOptions = {}): Promise<SimOutcome> {
  const problems = unsupportedFeatures(scenario);
  if (problems.length > 0) return { kind: 'unusable', problems };
  const record = await runToEnd(scenario, opts);
  const report = finalizeReport(record);
  return { kind: 'report', report, exitCode: exitCodeOf(report), record };
}
