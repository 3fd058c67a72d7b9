/**
 * The simulator as a library (docs/library.md): read a scenario, run it, get its report — through the
 * same functions `homeagent sim run` calls (src/cli/sim-run.ts), so that a run here has the trace hash
 * the command prints for the same file and seed.
 *
 * Theory of operation. The simulator answers with result objects (a scenario, or every problem of the
 * file), which the command turns into exit codes. A library caller wants a value or an exception, so
 * each function here unwraps the result and throws a ScenarioError carrying the problems. A scenario
 * read here remembers where it came from — a file, or a document — so that its report names the
 * command that reproduces the run, and the test kit (src/testing) can write the document to a file
 * when a run fails.
 */
import { finalizeReport, unexpectedViolations, type Report, type ReportViolation } from '../sim/report/index.ts';
import { reproduceCommand } from '../sim/reproduce.ts';
import {
  loadScenarioFile as readScenarioFile,
  parseScenario as checkScenario,
  SEED_MAX,
  type ParseResult,
  type Problem,
  type Scenario,
} from '../sim/scenario/index.ts';
import { runScenario as simulate, unsupportedFeatures } from '../sim/simulation.ts';
import { formatProblems } from '../validation/problem.ts';

/** A scenario that cannot run: every problem, each with its JSON path and what to fix. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  /** `path` is the JSON path of the offending field (`""` for the whole file), as docs/scenario-format.md words it. */
  readonly problems: readonly Problem[];

  /** `what` names the scenario in the message: its file, or its name. */
  constructor(what: string, problems: readonly Problem[]) {
    super(formatProblems(what, problems));
    this.problems = problems.map((p) => ({ path: p.path, message: p.message }));
  }
}

/** Where a scenario came from: the file it was read from, or the document it was parsed from. */
export type ScenarioOrigin =
  { readonly kind: 'file'; readonly path: string } | { readonly kind: 'document'; readonly document: unknown };

const origins = new WeakMap<Scenario, ScenarioOrigin>();

/** The origin of a scenario read by this module; null for one built some other way. */
export function scenarioOrigin(scenario: Scenario): ScenarioOrigin | null {
  return origins.get(scenario) ?? null;
}

/**
 * Reads and checks a scenario file (docs/scenario-format.md). Throws a ScenarioError listing every
 * problem: an unreadable file, bytes that are not UTF-8, invalid JSON, or a document that is not a
 * scenario.
 */
export async function loadScenarioFile(path: string): Promise<Scenario> {
  const scenario = checked(`scenario file ${path}`, readScenarioFile(path));
  origins.set(scenario, { kind: 'file', path });
  return scenario;
}

/**
 * Checks a parsed JSON document as a scenario and returns it normalized, every default applied.
 * Throws a ScenarioError listing every problem.
 */
export function parseScenario(json: unknown): Scenario {
  const scenario = checked(`scenario ${nameOf(json)}`, checkScenario(json));
  // A copy: the caller may go on editing the document it passed.
  origins.set(scenario, { kind: 'document', document: JSON.parse(JSON.stringify(json)) as unknown });
  return scenario;
}

export interface RunScenarioOptions {
  /** The seed of every random draw of the run; default: the scenario's own (`seed`, else 1). */
  readonly seed?: number;
  /** Activate a seeded subset of the fault sites, as `sim run --swarm` does (docs/cli.md). */
  readonly swarm?: boolean;
  /** Also write the canonical trace (a header line, then one JSON line per event) to this file. */
  readonly tracePath?: string;
}

/**
 * Runs a scenario on virtual time and returns its report (docs/report.md): the report
 * `homeagent sim run <file> --seed N --json` prints, with the same trace hash. A failed expectation
 * or an invariant violation is in the report (`ok: false`), not an exception; a scenario using a
 * feature this simulator cannot run throws a ScenarioError, and a trace file that cannot be written
 * throws the file system's error.
 */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions = {}): Promise<Report> {
  const seed = options.seed ?? scenario.seed;
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > SEED_MAX) {
    throw new RangeError(`runScenario: options.seed must be an integer 0 … ${SEED_MAX}, got ${String(seed)}`);
  }
  const swarm = options.swarm === true;
  const problems = unsupportedFeatures(scenario);
  if (problems.length > 0) throw new ScenarioError(`scenario ${scenario.name}`, problems);
  const outcome = await simulate(scenario, {
    seed,
    swarm,
    command: runCommand(scenario, seed, swarm),
    ...(options.tracePath === undefined ? {} : { tracePath: options.tracePath }),
  });
  if (outcome.kind === 'unusable') throw new ScenarioError(`scenario ${scenario.name}`, outcome.problems);
  // As `sim run` finalizes it: with the informative `expect.exitCode` entry, when the scenario has one.
  return finalizeReport(outcome.record, { exitCode: true });
}

/** The command that runs `file` with a run's seed and swarm, as a report words it (the test kit's failures). */
export function runFileCommand(file: string, seed: number, swarm: boolean): string {
  return reproduceCommand(file, seed, false, swarm);
}

/** The violations of a report that its scenario does not list as expected: those that fail the run. */
export function unexpectedViolationsOf(scenario: Scenario, report: Report): ReportViolation[] {
  return unexpectedViolations(scenario, report.violations);
}

/** The command that reproduces a run: with the scenario's file when it was read from one. */
function runCommand(scenario: Scenario, seed: number, swarm: boolean): string {
  const origin = origins.get(scenario);
  if (origin?.kind === 'file') return runFileCommand(origin.path, seed, swarm);
  return `npx homeagent sim run <scenario> --seed ${seed}${swarm ? ' --swarm' : ''}`;
}

function checked(what: string, result: ParseResult): Scenario {
  if (!result.ok) throw new ScenarioError(what, result.problems);
  return result.scenario;
}

/** The document's `name` when it has a usable one, for the error message. */
function nameOf(json: unknown): string {
  const name = json !== null && typeof json === 'object' ? (json as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? JSON.stringify(name) : '(unnamed)';
}
