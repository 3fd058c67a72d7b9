/**
 * `homeagent sim run <scenario.json> [--seed N] [--trace out.jsonl] [--json] [--check-determinism]
 * [--shuffle-ties] [--html out.html] [--otlp out.json]` (docs/spec.md §12.1): one seeded run of one scenario, its
 * report, and an exit code; `--html` also writes the timeline of the run (sim-view.ts) and the summary links
 * it; `--otlp` writes the run's spans as OTLP JSON (otlp-file.ts).
 *
 * Theory of operation: validate everything first (flags and the scenario, every problem collected,
 * "not supported yet" features included), so that exit 2 lists all that is wrong at once; then run;
 * then hand the command-level checks to report/finalize.ts as data, which adds their `expectations`
 * entries (see there):
 *  - `--check-determinism` runs the scenario a second time with the same seed and options; its trace
 *    hash must equal the first run's, else the run fails.
 *  - `expect.exitCode`, when the scenario has one, is compared with the exit code of the run. It is
 *    informative only: it changes neither `ok` nor the exit code.
 *
 * With `--json`, stdout carries exactly one JSON document (the report, or the unusable-input document
 * on exit 2) and nothing is written to stderr unless the process crashes. The only wall-clock value in
 * that document is the report's own `wallMs`.
 */
import type { Command } from 'commander';
import type { CommandChecks, Report } from '../sim/report/index.ts';
import { exitCodeOf, finalizeReport, formatSummary } from '../sim/report/index.ts';
import type { Problem, Scenario } from '../sim/scenario/index.ts';
import { loadScenarioFile } from '../sim/scenario/index.ts';
import { runScenario, unexpectedViolations, unsupportedFeatures, type SimOptions } from '../sim/simulation.ts';
import {
  EXIT_OK,
  EXIT_UNUSABLE,
  formatProblems,
  parseNonNegativeInt,
  reproduceCommand,
  unusableDocument,
  writeJson,
  writeStdout,
  type ExitCode,
} from './cli-io.ts';
import { outputFileProblem } from './output-file.ts';
import { OtlpFile } from './otlp-file.ts';
import { htmlPathProblem, TimelineTrace, timelineLine } from './sim-view.ts';
import { runScenarioTraced, traceTargetProblem } from './trace-target.ts';

/** The flags as commander hands them over (values unvalidated). */
export interface SimRunFlags {
  readonly seed?: string;
  readonly trace?: string;
  readonly json?: boolean;
  readonly checkDeterminism?: boolean;
  readonly shuffleTies?: boolean;
  readonly swarm?: boolean;
  readonly html?: string;
  readonly otlp?: string;
}

const EXAMPLES = `
Examples:
  # the E4 priority stress with its own seed: a readable summary, exit 0 when it passes
  $ npx homeagent sim run scenarios/e4-priority-stress.json
  # another seed, the full report as JSON
  $ npx homeagent sim run scenarios/e4-priority-stress.json --seed 42 --json > report.json
  # run twice and compare trace hashes; keep the trace and draw its timeline
  $ npx homeagent sim run scenarios/e5-nested-to-the-bound.json --check-determinism --trace e5.jsonl --html e5.html
`;

export function registerSimRun(sim: Command): void {
  sim
    .command('run')
    .description('run one scenario with one seed and report (exit 0 ok, 1 failed, 2 unusable input)')
    .argument('<scenario.json>', 'scenario file (docs/spec.md §12.2)')
    .option('--seed <n>', "seed, a non-negative integer (default: the scenario's seed)")
    .option('--trace <file>', 'write the canonical trace (a header line, then one JSON line per event)')
    .option('--json', 'print the report as one JSON document on stdout, and nothing else')
    .option('--check-determinism', 'run twice with the same seed and compare the trace hashes')
    .option('--shuffle-ties', 'permute timers due at the same instant with the seeded RNG')
    .option('--swarm', "activate a seeded subset of fault sites; the scenario's expect counts stop being verdicts")
    .option('--html <file>', 'write the timeline of the run as one self-contained HTML page (see sim view)')
    .option('--otlp <file>', "write the run's spans as OTLP JSON (an ExportTraceServiceRequest), with virtual times")
    .addHelpText('after', EXAMPLES)
    .action(async (file: string, flags: SimRunFlags) => {
      process.exitCode = await simRun(file, flags);
    });
}

interface RunInput {
  readonly scenario: Scenario;
  readonly seed: number;
}

export async function simRun(file: string, flags: SimRunFlags): Promise<ExitCode> {
  const json = flags.json === true;
  const input = validate(file, flags);
  if (!input.ok) return unusable(file, input.problems, json);

  const { scenario, seed } = input.value;
  const shuffleTies = flags.shuffleTies === true;
  const swarm = flags.swarm === true;
  const base: SimOptions = { seed, shuffleTies, swarm, command: reproduceCommand(file, seed, shuffleTies, swarm) };
  const timeline = flags.html === undefined ? null : new TimelineTrace(flags.html, flags.trace);
  const tracePath = timeline?.tracePath ?? flags.trace;
  const otlp = flags.otlp === undefined ? null : new OtlpFile(flags.otlp);
  const tapped: SimOptions = otlp === null ? base : { ...base, onInput: otlp.onInput };
  const first =
    tracePath === undefined
      ? await runScenario(scenario, tapped)
      : await runScenarioTraced(scenario, { ...tapped, tracePath });
  if (first.kind === 'unusable') {
    timeline?.discard();
    return unusable(file, first.problems, json);
  }
  const timelineLink = timeline === null ? '' : `${timelineLine(timeline.write())}\n`;
  await otlp?.write(first.record.events, scenario.name, seed);

  // The second run of --check-determinism gets the same seed and options, but no trace file.
  const second = flags.checkDeterminism === true ? await runScenario(scenario, base) : null;
  const checks: CommandChecks =
    second === null
      ? { exitCode: true }
      : { determinism: { secondHash: second.kind === 'report' ? second.report.traceHash : null }, exitCode: true };
  const report = finalizeReport(first.record, checks);
  const exitCode: ExitCode = exitCodeOf(report);

  if (json) await writeJson(report);
  else
    await writeStdout(`${formatSummary(report)}\n${timelineLink}${verdict(scenario, report, exitCode).join('\n')}\n`);
  return exitCode;
}

// ---------------------------------------------------------------- validation

type Validated = { readonly ok: true; readonly value: RunInput } | { readonly ok: false; readonly problems: Problem[] };

/** Flags first, then the scenario file; every problem of both. */
function validate(file: string, flags: SimRunFlags): Validated {
  const problems: Problem[] = [];
  let seed: number | null = null;
  if (flags.seed !== undefined) {
    seed = parseNonNegativeInt(flags.seed);
    if (seed === null)
      problems.push({ path: '--seed', message: `must be a non-negative integer, got ${JSON.stringify(flags.seed)}` });
  }
  if (flags.html !== undefined) {
    const problem = htmlPathProblem(flags.html, '--html', [
      { what: 'scenario file', path: file },
      ...(flags.trace === undefined ? [] : [{ what: '--trace file', path: flags.trace }]),
    ]);
    if (problem !== null) problems.push(problem);
  }
  if (flags.otlp !== undefined) {
    const problem = outputFileProblem(flags.otlp, '--otlp', 'spans', [
      { what: 'scenario file', path: file },
      ...(flags.trace === undefined ? [] : [{ what: '--trace file', path: flags.trace }]),
      ...(flags.html === undefined ? [] : [{ what: '--html file', path: flags.html }]),
    ]);
    if (problem !== null) problems.push(problem);
  }
  if (flags.trace !== undefined) {
    const problem = traceTargetProblem(flags.trace, file);
    if (problem !== null) problems.push(problem);
  }
  const loaded = loadScenarioFile(file);
  if (!loaded.ok) problems.push(...loaded.problems);
  else problems.push(...unsupportedFeatures(loaded.scenario));
  if (problems.length > 0 || !loaded.ok) return { ok: false, problems };
  return { ok: true, value: { scenario: loaded.scenario, seed: seed ?? loaded.scenario.seed } };
}

async function unusable(file: string, problems: readonly Problem[], json: boolean): Promise<ExitCode> {
  if (json) await writeJson(unusableDocument(problems));
  else process.stderr.write(`${formatProblems(`homeagent sim run ${file}`, problems)}\n`);
  return EXIT_UNUSABLE;
}

// ---------------------------------------------------------------- readable verdict

/** The lines after the summary: the determinism result, the informative exitCode note, the verdict. */
function verdict(scenario: Scenario, report: Report, exitCode: ExitCode): string[] {
  const lines: string[] = [];
  const determinism = report.expectations.find((x) => x.name === 'determinism' && x.path === '--check-determinism');
  if (determinism !== undefined) {
    lines.push(
      determinism.ok
        ? 'determinism: OK, both runs have the same trace hash'
        : `determinism: FAILED, run 1 trace hash ${String(determinism.expected)}, run 2 ${String(determinism.actual)}`,
    );
  }
  const exitEntry = report.expectations.find((x) => x.name === 'exitCode' && x.path === 'expect.exitCode');
  if (exitEntry !== undefined && !exitEntry.ok) {
    lines.push(
      `note: expect.exitCode is ${String(exitEntry.expected)} but the run exits ${exitCode} (informative; the exit code is not changed)`,
    );
  }
  if (exitCode === EXIT_OK) {
    lines.push('result: OK (exit 0)');
    return lines;
  }
  // formatSummary has already listed every failed expectation and violation in full, and the reproduce
  // line; the verdict names what failed, and which violations were not expected.
  const failed = report.expectations.filter((x) => !x.ok && x !== exitEntry).map((x) => x.name);
  const unexpected = [...new Set(unexpectedViolations(scenario, report.violations).map((v) => v.invariant))];
  const parts = [
    ...(failed.length > 0 ? [`failed expectations: ${failed.join(', ')}`] : []),
    ...(unexpected.length > 0 ? [`unexpected violations: ${unexpected.join(', ')}`] : []),
  ];
  lines.push(`result: FAILED (exit 1) with seed ${report.seed}; ${parts.join('; ')}`);
  return lines;
}
