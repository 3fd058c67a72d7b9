/**
 * The verdict of a run (docs/spec.md §12.1, §12.3): the only code that sets a report's `ok`, `expectations`,
 * `outputs` and `channels`.
 *
 * Theory of operation. A finished run hands over a `RunRecord` — its trace, its final kernel dump, what
 * the simulator noticed beyond the trace (violations, unfired triggers) and the scenario's `expect`
 * block — and `finalizeReport` turns it into the report in one pure step: the body from build.ts, the
 * outputs and the channel registry, the expectations checked against them (expect.ts), and `ok`.
 * Checks that only a command can make arrive as data in `CommandChecks`, so no caller patches a report
 * afterwards:
 *  - `determinism` (`sim run --check-determinism`): the second run's trace hash. A `determinism` entry
 *    follows the scenario's expectations (expected: the first hash, actual: the second); a mismatch
 *    fails the run.
 *  - `exitCode` (`sim run`): when the scenario has `expect.exitCode`, an `exitCode` entry comparing it
 *    with the exit code the run will have (`exitCodeOf`, after the determinism check). It is
 *    informative only: it changes neither `ok` nor the exit code, because the exit code is the CLI's
 *    public contract and a scenario must not be able to turn a failing run into a passing one.
 *
 * The top-level object literal below lists the fields in the docs/spec.md §12.3 order: `JSON.stringify` of the
 * report, a public contract, depends on it.
 */
import type { TraceEvent } from '../../kernel/index.ts';
import type { ResponseBoundReport } from '../response/report.ts';
import type { Expect } from '../scenario/index.ts';
import { buildReport } from './build.ts';
import { evaluateExpectations } from './expect.ts';
import type {
  Report,
  ReportChannel,
  ReportCrash,
  ReportExpectation,
  ReportLost,
  ReportInput,
  ReportOutput,
  ReportSwarm,
  UncheckedReport,
} from './types.ts';

/** Everything a finished run hands to its report. */
export interface RunRecord extends ReportInput {
  readonly expect: Expect;
  /** Input ids whose `when`/`afterTerminal` trigger could no longer fire. */
  readonly unfiredTriggers: readonly string[];
  /** The active fault sites of a `--swarm` run; absent or null without it. */
  readonly swarm?: ReportSwarm | null;
  /** The RESPONSE monitor's account of the run (sim/response/report.ts); absent for records made without it. */
  readonly responseBound?: ResponseBoundReport;
  /** The crashes of the simulated process and the submissions they lost; absent or null when none crashed. */
  readonly crash?: { readonly crashes: readonly ReportCrash[]; readonly lost: readonly ReportLost[] } | null;
}

/**
 * Under `--swarm` the faults legitimately change what a scenario's own `expect` block counts (who
 * finishes, in which order, with which reply, whether a `when` trigger ever fires), so of its
 * expectations only the invariants remain a verdict; `oneTerminal` (every submitted task has exactly
 * one terminal event) takes the place of `allTerminal`, which also counts inputs a fault kept from
 * ever being submitted.
 */
const SWARM_VERDICTS: ReadonlySet<string> = new Set(['invariants']);

/** Results of checks that a command makes around a run, passed in as data. */
export interface CommandChecks {
  /** `--check-determinism`: the trace hash of the second run (null when it gave no report). */
  readonly determinism?: { readonly secondHash: string | null };
  /** Compare `expect.exitCode`, when the scenario has one, with the run's exit code (informative). */
  readonly exitCode?: boolean;
}

export function finalizeReport(run: RunRecord, checks: CommandChecks = {}): Report {
  const body = buildReport(run);
  const crash = run.crash ?? null;
  const unchecked: UncheckedReport = {
    ...body,
    outputs: outputsOf(run.events),
    channels: channelsOf(run),
    ...(crash === null ? {} : { crashes: crash.crashes, lost: crash.lost }),
  };
  const evaluated = evaluateExpectations(run.expect, unchecked, { unfiredTriggers: run.unfiredTriggers });
  const swarm = run.swarm ?? null;
  const expectations =
    swarm === null ? evaluated : [...evaluated.filter((e) => SWARM_VERDICTS.has(e.name)), oneTerminal(unchecked)];
  let ok = expectations.every((e) => e.ok) && unexpectedViolations(run, run.violations).length === 0;
  if (checks.determinism !== undefined) {
    const actual = checks.determinism.secondHash;
    const same = actual === body.traceHash;
    expectations.push({ name: 'determinism', path: '--check-determinism', ok: same, expected: body.traceHash, actual });
    if (!same) ok = false;
  }
  const expectedExit = run.expect.exitCode;
  if (checks.exitCode === true && expectedExit !== undefined) {
    // Informative only (see the file comment): `ok`, and so the exit code, stay as they are.
    const exitCode = exitCodeOf({ ok });
    expectations.push({
      name: 'exitCode',
      path: 'expect.exitCode',
      ok: exitCode === expectedExit,
      expected: expectedExit,
      actual: exitCode,
    });
  }
  return {
    reportVersion: body.reportVersion,
    scenario: body.scenario,
    seed: body.seed,
    ok,
    traceHash: body.traceHash,
    events: body.events,
    virtualMs: body.virtualMs,
    wallMs: body.wallMs,
    command: body.command,
    config: body.config,
    violations: body.violations,
    expectations,
    tasks: body.tasks,
    outputs: unchecked.outputs,
    stops: body.stops,
    drops: body.drops,
    deferrals: body.deferrals,
    triggers: body.triggers,
    suspendOrder: body.suspendOrder,
    resumeOrder: body.resumeOrder,
    finishOrder: body.finishOrder,
    terminalOrder: body.terminalOrder,
    maxStackDepth: body.maxStackDepth,
    counters: body.counters,
    agents: body.agents,
    channels: unchecked.channels,
    ...(swarm === null ? {} : { swarm }),
    ...(run.responseBound === undefined ? {} : { responseBound: run.responseBound }),
    ...(crash === null ? {} : { crashes: crash.crashes, lost: crash.lost }),
  };
}

/** docs/spec.md §12.1: exit 0 when the report is ok, else 1 (2, unusable input, never reaches a report). */
export function exitCodeOf(report: Pick<Report, 'ok'>): 0 | 1 {
  return report.ok ? 0 : 1;
}

/** Violations not listed in `expect.violations` (when `expect.invariants` is on): the rule `ok` uses. */
export function unexpectedViolations<V extends { readonly invariant: string }>(
  s: { readonly expect: Pick<Expect, 'invariants' | 'violations'> },
  violations: readonly V[],
): V[] {
  if (!s.expect.invariants) return [];
  // Stryker disable next-line ArrayDeclaration: a fallback holding no invariant name allows no violation either
  const allowed = new Set(s.expect.violations ?? []);
  return violations.filter((v) => !allowed.has(v.invariant));
}

/** Under `--swarm`: the submitted tasks without exactly one terminal event. */
function oneTerminal(report: UncheckedReport): ReportExpectation {
  const offending = Object.entries(report.tasks)
    .filter(([, t]) => t.submittedAt !== null && t.terminalCount !== 1)
    .map(([id]) => id);
  return { name: 'oneTerminal', path: '--swarm', ok: offending.length === 0, expected: [], actual: offending };
}

/** The report's `outputs`: every `output_send` in trace order, by channel. */
function outputsOf(events: readonly TraceEvent[]): Record<string, ReportOutput[]> {
  const outputs: Record<string, ReportOutput[]> = {};
  for (const e of events) {
    if (e.type !== 'output.sent') continue;
    (outputs[e.channel] ??= []).push({ agent: e.agent, task: e.task, text: e.text });
  }
  return outputs;
}

/** The report's `channels`: the inputch registry at the end of the run. */
function channelsOf(run: RunRecord): ReportChannel[] {
  return run.dump.channels.map((c) => ({ name: c.name, plugin: c.plugin, owner: c.owner }));
}
