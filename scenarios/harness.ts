/**
 * The scenario harness shared by `golden.ts` and `scenarios.test.ts`.
 *
 * Theory of operation. Every `scenarios/*.json` file except `golden.json` is a scenario (docs/spec.md §12.2);
 * `golden.json` maps each scenario name to the trace hash of a run with the scenario's own seed. A
 * trace hash covers every trace event, so any change of scheduling, timing or text shows up as a
 * changed hash; a deliberate change is recorded with `npm run golden -- --update-golden`.
 * Nothing here writes anything: writing golden.json is the script's explicit job.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Report } from '../src/sim/report/index.ts';
import { loadScenarioFile, type Scenario } from '../src/sim/scenario/index.ts';
import { runScenario } from '../src/sim/simulation.ts';

export const SCENARIOS_DIR = dirname(fileURLToPath(import.meta.url));
export const GOLDEN_PATH = join(SCENARIOS_DIR, 'golden.json');
const GOLDEN_FILE = 'golden.json';

export type Golden = Record<string, string>;

export interface ScenarioFile {
  /** The file name without `.json`; a scenario's `name` must equal it. */
  readonly name: string;
  readonly path: string;
}

/** Every scenario file, sorted by name (the order of golden.json and of the tests). */
export function listScenarioFiles(): ScenarioFile[] {
  return readdirSync(SCENARIOS_DIR)
    .filter((f) => f.endsWith('.json') && f !== GOLDEN_FILE)
    .sort()
    .map((f) => ({ name: basename(f, '.json'), path: join(SCENARIOS_DIR, f) }));
}

/** Loads a scenario file; a schema problem or a name that differs from the file name is an error. */
export function loadScenario(file: ScenarioFile): Scenario {
  const parsed = loadScenarioFile(file.path);
  if (!parsed.ok) {
    const problems = parsed.problems.map((p) => `  ${p.path === '' ? '(root)' : p.path}: ${p.message}`).join('\n');
    throw new Error(`${file.path} is not a valid scenario:\n${problems}`);
  }
  if (parsed.scenario.name !== file.name) {
    throw new Error(`${file.path}: name "${parsed.scenario.name}" must equal the file name "${file.name}"`);
  }
  return parsed.scenario;
}

/** Runs a scenario with its own seed; a scenario the simulator cannot run is an error. */
export async function runScenarioFile(file: ScenarioFile): Promise<Report> {
  const scenario = loadScenario(file);
  const outcome = await runScenario(scenario, {
    command: `npx homeagent sim run scenarios/${file.name}.json --seed ${scenario.seed}`,
  });
  if (outcome.kind === 'unusable') {
    const problems = outcome.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
    throw new Error(`${file.path} cannot be run:\n${problems}`);
  }
  return outcome.report;
}

/** The spec IDs (docs/spec.md) a scenario covers: the comma-separated list before the first ':' of its description. */
export function specIds(scenario: Scenario): string[] {
  const description = scenario.description ?? '';
  const colon = description.indexOf(':');
  if (colon < 0) return [];
  return description
    .slice(0, colon)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function readGolden(): Golden {
  let text: string;
  try {
    text = readFileSync(GOLDEN_PATH, 'utf8');
  } catch {
    return {};
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${GOLDEN_PATH} must be a JSON object { "<scenario name>": "<trace hash>" }`);
  }
  const golden: Golden = {};
  for (const [name, hash] of Object.entries(parsed)) {
    if (typeof hash !== 'string') throw new Error(`${GOLDEN_PATH}: the hash of "${name}" must be a string`);
    golden[name] = hash;
  }
  return golden;
}

/** The failed expectations and the violations of a report, one per line, for assertion messages. */
export function describeFailures(report: Report): string {
  const lines: string[] = [];
  for (const x of report.expectations) {
    if (!x.ok)
      lines.push(
        `expectation ${x.name} at ${x.path}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual)}`,
      );
  }
  for (const v of report.violations) {
    lines.push(
      `violation ${v.invariant} t=${v.t}ms ${v.agent}${v.task === undefined ? '' : ` ${v.task}`}: ${v.message}`,
    );
    for (const c of v.context) lines.push(`    ${c}`);
  }
  lines.push(`reproduce: ${report.command}`);
  return lines.join('\n');
}
