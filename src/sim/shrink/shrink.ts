/**
 * Shrinking a failing scenario with fast-check: the smallest file, within the shrink
 * space of plan.ts, that still fails the same way with the same seed and options.
 *
 * Theory of operation. "The same way" is the failure's signature: the first unexpected violation's
 * invariant (LIVENESS, RESPONSE, I5, …), else the name of the first failed expectation. The failing
 * file is handed to fast-check as the one example of a property "this plan does not fail that way";
 * fast-check finds the example failing and shrinks it, trying smaller plans and keeping each that
 * still fails. Every try is a whole simulated run, so the tries are bounded (`maxRuns`, `maxMs`): past
 * the budget every try counts as passing, which ends the shrink with the smallest plan found so far.
 * A candidate that does not parse as a scenario is not a counterexample. An error that escapes the
 * simulator (a kernel assertion) is a failure too, named by its class and the rule its message starts
 * with.
 *
 * While shrinking, a candidate keeps only the `invariants`, `violations` and `allTerminal` parts of
 * `expect` when the failure is a violation (the other expectations name inputs that may be gone), and
 * all of it when the failure is an expectation.
 */
import fc from 'fast-check';
import type { Report } from '../report/index.ts';
import { parseScenario, type Scenario } from '../scenario/index.ts';
import { runScenario, unexpectedViolations } from '../simulation.ts';
import { applyPlan, shrinkSpace, type Json } from './plan.ts';

export interface RunFlags {
  readonly seed: number;
  readonly swarm: boolean;
  readonly shuffleTies: boolean;
}

export interface FailureSignature {
  /**
   * A crash is an error that escaped the simulator (a kernel assertion, say): it has no report. A
   * problem is what a property found beyond the report's own verdict (properties/ name it).
   */
  readonly kind: 'violation' | 'expectation' | 'crash' | 'problem';
  /** The invariant, the expectation name, or the error's class and rule ("AssertionError STRICT"). */
  readonly name: string;
  /** Its message (a violation) or "expected X, got Y" (an expectation), for the regression file. */
  readonly message: string;
}

export interface ShrinkBudget {
  /** Simulated runs the shrink may make. */
  readonly maxRuns: number;
  /** Wall time it may take. */
  readonly maxMs: number;
}

export interface ShrinkResult {
  /** The smallest failing file found, with `seed` set to the run's seed. */
  readonly scenario: Json;
  readonly signature: FailureSignature;
  /** Every distinct unexpected violation of the shrunk run, in order. */
  readonly violations: readonly string[];
  /** Whether the shrunk run ended every input (the `allTerminal` expectation held). */
  readonly allTerminal: boolean;
  readonly runs: number;
  readonly shrinks: number;
}

export const DEFAULT_SHRINK_BUDGET: ShrinkBudget = { maxRuns: 400, maxMs: 120_000 };

/** The failure of a report, or null when it passed. */
export function failureSignature(scenario: Pick<Scenario, 'expect'>, report: Report): FailureSignature | null {
  if (report.ok) return null;
  const violation = unexpectedViolations(scenario, report.violations)[0];
  if (violation !== undefined) return { kind: 'violation', name: violation.invariant, message: violation.message };
  const failed = report.expectations.find((x) => !x.ok);
  if (failed === undefined) return null;
  return {
    kind: 'expectation',
    name: failed.name,
    message: `expected ${JSON.stringify(failed.expected)}, got ${JSON.stringify(failed.actual)}`,
  };
}

export type FileRun =
  | { readonly kind: 'report'; readonly scenario: Scenario; readonly report: Report }
  | { readonly kind: 'crash'; readonly signature: FailureSignature };

/** Runs a file; null when it does not parse or the simulator refuses it. */
export async function runFile(doc: Json, flags: RunFlags): Promise<FileRun | null> {
  const parsed = parseScenario(doc);
  if (!parsed.ok) return null;
  try {
    const outcome = await runScenario(parsed.scenario, {
      seed: flags.seed,
      swarm: flags.swarm,
      shuffleTies: flags.shuffleTies,
    });
    return outcome.kind === 'report' ? { kind: 'report', scenario: parsed.scenario, report: outcome.report } : null;
  } catch (err) {
    return { kind: 'crash', signature: crashSignature(err) };
  }
}

/** The failure of a run, or null when it passed. */
function runFailure(run: FileRun | null): FailureSignature | null {
  if (run === null) return null;
  return run.kind === 'crash' ? run.signature : failureSignature(run.scenario, run.report);
}

/** "AssertionError STRICT" for "AssertionError: STRICT: gi4-3 (eff 4) armed …": the class and the rule. */
function crashSignature(err: unknown): FailureSignature {
  const error = err instanceof Error ? err : new Error(String(err));
  const rule = /^([A-Z][A-Za-z0-9]*):/.exec(error.message)?.[1];
  return { kind: 'crash', name: rule === undefined ? error.name : `${error.name} ${rule}`, message: error.message };
}

/** Shrinks `doc`, which fails with `flags`; null when it does not fail at all. */
export async function shrinkScenario(
  doc: Json,
  flags: RunFlags,
  budget: ShrinkBudget = DEFAULT_SHRINK_BUDGET,
): Promise<ShrinkResult | null> {
  const base: Json = { ...doc, seed: flags.seed };
  const signature = runFailure(await runFile(base, flags));
  if (signature === null) return null;
  const expect = record(base.expect) ?? {};
  const candidateExpect =
    signature.kind === 'violation' ? pick(expect, ['invariants', 'violations', 'allTerminal']) : expect;
  const space = shrinkSpace(base);
  const started = performance.now();
  let runs = 0;
  const sameFailure = async (candidate: Json): Promise<boolean> => {
    if (runs >= budget.maxRuns || performance.now() - started > budget.maxMs) return false;
    runs += 1;
    const got = runFailure(await runFile(candidate, flags));
    return got !== null && got.kind === signature.kind && got.name === signature.name;
  };
  const build = (plan: Parameters<typeof applyPlan>[1]): Json => ({
    ...applyPlan(base, plan),
    expect: candidateExpect,
  });
  const details = await fc.check(
    fc.asyncProperty(space.arbitrary, async (plan) => !(await sameFailure(build(plan)))),
    { examples: [[space.fullPlan]], numRuns: 1, endOnFailure: false },
  );
  const shrunk = details.failed && details.counterexample !== null ? details.counterexample[0] : undefined;
  const smallest = build(shrunk ?? space.fullPlan);
  const final = await runFile(smallest, flags);
  const report = final?.kind === 'report' ? final : null;
  const violations =
    report === null
      ? []
      : [...new Set(unexpectedViolations(report.scenario, report.report.violations).map((v) => v.invariant))];
  const allTerminal = report?.report.expectations.find((x) => x.name === 'allTerminal')?.ok ?? true;
  const shown = runFailure(final) ?? signature;
  return { scenario: smallest, signature: shown, violations, allTerminal, runs, shrinks: details.numShrinks };
}

function pick(from: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (Object.hasOwn(from, key)) out[key] = from[key];
  return out;
}

function record(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}
