/**
 * `expectScenarioPasses`: run a scenario in a test and fail the test, readably, when the run fails —
 * each failed expectation with what was expected and what came, each violation with its trace
 * context, and the command that reproduces the run outside the test.
 *
 * Theory of operation. The run is the library's runScenario, so the verdict is the one `sim run`
 * gives (exit 1 is a failure here). A failure names the command to paste into a shell; that command
 * needs a file, so a scenario built in code (a ScenarioBuilder, or a parsed document) is written to
 * `failureDir` first, under its own name, and only when it fails. It throws a plain Error subclass,
 * so it works under any test runner.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report, ReportExpectation, ReportViolation, Scenario } from '../index.ts';
import {
  loadScenarioFile,
  runFileCommand,
  runScenario,
  scenarioOrigin,
  unexpectedViolationsOf,
} from '../library/scenarios.ts';
import { ScenarioBuilder } from './scenario-builder.ts';

export interface ExpectScenarioOptions {
  /** The seed of the run; default: the scenario's own. */
  readonly seed?: number;
  /** Activate a seeded subset of the fault sites (`sim run --swarm`); only the invariants stay verdicts. */
  readonly swarm?: boolean;
  /** Also write the canonical trace of the run to this file. */
  readonly tracePath?: string;
  /**
   * Where a failing scenario built in code is written, so that the reproduce command can run it;
   * default `homeagent-failures` in the system's temporary directory.
   */
  readonly failureDir?: string;
}

/** A scenario run that failed: the report, and the command that runs it again. */
export class ScenarioFailure extends Error {
  override readonly name = 'ScenarioFailure';

  constructor(
    message: string,
    readonly report: Report,
    /** The shell command that reproduces the run; null when the scenario has no file and none could be written. */
    readonly reproduce: string | null,
  ) {
    super(message);
  }
}

/**
 * Runs a scenario — a file path, a ScenarioBuilder or a Scenario — and resolves to its report when the
 * run passes (`sim run` would exit 0). Otherwise it throws a ScenarioFailure naming every failed
 * expectation and every unexpected invariant violation, and the command that reproduces the run. An
 * unusable scenario throws the ScenarioError of its problems.
 */
export async function expectScenarioPasses(
  subject: Scenario | ScenarioBuilder | string,
  options: ExpectScenarioOptions = {},
): Promise<Report> {
  const scenario = await scenarioOf(subject);
  const report = await runScenario(scenario, {
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.swarm === undefined ? {} : { swarm: options.swarm }),
    ...(options.tracePath === undefined ? {} : { tracePath: options.tracePath }),
  });
  if (report.ok) return report;
  const reproduce = reproduceCommand(subject, scenario, report, options);
  throw new ScenarioFailure(failureMessage(scenario, report, reproduce), report, reproduce);
}

async function scenarioOf(subject: Scenario | ScenarioBuilder | string): Promise<Scenario> {
  if (typeof subject === 'string') return loadScenarioFile(subject);
  if (subject instanceof ScenarioBuilder) return subject.build();
  return subject;
}

/** The run's command on a file: the scenario's own, or its document written to `failureDir`. */
function reproduceCommand(
  subject: Scenario | ScenarioBuilder | string,
  scenario: Scenario,
  report: Report,
  options: ExpectScenarioOptions,
): string | null {
  const swarm = options.swarm === true;
  const origin = scenarioOrigin(scenario);
  if (origin?.kind === 'file') return runFileCommand(origin.path, report.seed, swarm);
  const document = subject instanceof ScenarioBuilder ? subject.toJSON() : origin?.document;
  if (document === undefined) return null;
  const dir = options.failureDir ?? join(tmpdir(), 'homeagent-failures');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${scenario.name}.json`);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return runFileCommand(file, report.seed, swarm);
}

function failureMessage(scenario: Scenario, report: Report, reproduce: string | null): string {
  // The informative `expect.exitCode` entry never fails a run (report/finalize.ts), so it is left out.
  const failed = report.expectations.filter((x) => !x.ok && x.name !== 'exitCode');
  const violations = unexpectedViolationsOf(scenario, report);
  const counts = [
    ...(failed.length > 0 ? [plural(failed.length, 'failed expectation')] : []),
    ...(violations.length > 0 ? [plural(violations.length, 'unexpected invariant violation')] : []),
  ];
  const lines = [`scenario ${scenario.name} failed with seed ${report.seed}: ${counts.join(', ')}`];
  for (const x of failed) lines.push(`  ${expectationLine(x)}`);
  for (const v of violations) lines.push(`  ${violationLine(v)}`, ...v.context.map((c) => `      ${c}`));
  if (report.swarm !== undefined) lines.push(`  swarm sites: ${report.swarm.sites.join(', ') || '(none active)'}`);
  lines.push(
    reproduce === null
      ? `reproduce: write the scenario to a file, then npx homeagent sim run <file> --seed ${report.seed}${report.swarm === undefined ? '' : ' --swarm'}`
      : `reproduce: ${reproduce}`,
  );
  return lines.join('\n');
}

/** `expectation finishOrder: expected …, got …`; the path follows when it is not `expect.<name>`. */
function expectationLine(x: ReportExpectation): string {
  const where = x.path === `expect.${x.name}` ? '' : ` (${x.path})`;
  return `expectation ${x.name}${where}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual)}`;
}

function violationLine(v: ReportViolation): string {
  return `violation ${v.invariant} at t=${v.t}ms, agent ${v.agent}${v.task === undefined ? '' : `, task ${v.task}`}: ${v.message}`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
