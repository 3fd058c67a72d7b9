/**
 * The runs of the swarm campaign's in-process parts, and what each one found: its verdict (violations the
 * scenario does not expect, and tasks without exactly one terminal) and the listed "sometimes" states it
 * reached (src/sim/report/reached.ts).
 *
 * Three kinds of run, each under the swarm:
 *  - a scenario file of scenarios/ (and scenarios/regressions/) at one seed;
 *  - the i-th generated root scenario (the generated-scenario property's generator: stops, tools, MCP
 *    servers, crashes), its `seed` set to i so that the swarm's active sites are those of seed i;
 *  - the i-th generated scenario with residents (the resident property's generator: resident and rt
 *    children, compress, reclaim, destroy), likewise.
 * Each generator is sampled from a fixed fast-check seed, so a campaign is the same every time.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadScenarioFile, type Scenario } from '../../src/sim/scenario/index.ts';
import { reachedStates, type Report, type ReachedState } from '../../src/sim/report/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';
import { Swarm } from '../../src/sim/swarm.ts';
import { scenarioJsonArb } from '../../properties/scenario-arbitrary.ts';
import { residentScenarioArb } from '../../properties/resident-scenario-arbitrary.ts';
import type { ScenarioFile } from '../../properties/scenario-json.ts';
import { parsed } from '../../properties/scenario-checks.ts';

/** The fast-check seed of the generated scenarios: fixed, so a campaign is the same every time. */
export const GENERATED_SEED = 20_251_111;

export type InProcessPart = 'scenarios' | 'generated' | 'residents';

/** One run to make: which part, which scenario (a file, or a generator's index) and which seed. */
export type RunItem =
  | { readonly part: 'scenarios'; readonly file: string; readonly seed: number }
  | { readonly part: 'generated' | 'residents'; readonly index: number };

/** One run's verdict, as the campaign counts it. */
export interface RunVerdict {
  readonly part: InProcessPart;
  /** The scenario file, or `generated-<i>` / `residents-<i>`. */
  readonly scenario: string;
  readonly seed: number;
  readonly violations: readonly { readonly invariant: string; readonly message: string }[];
  /** Submitted tasks without exactly one terminal event. */
  readonly lost: readonly string[];
  readonly sites: readonly string[];
  readonly reached: readonly ReachedState[];
}

/** Every scenario file under `dir` and its regressions/ folder, in name order (golden.json is a table, not a scenario). */
export function scenarioFiles(dir: string): string[] {
  const inDir = (d: string): string[] =>
    readdirSync(d)
      .filter((name) => name.endsWith('.json') && name !== 'golden.json')
      .sort()
      .map((name) => join(d, name));
  return [...inDir(dir), ...inDir(join(dir, 'regressions'))];
}

/** The runs of the in-process parts, in a fixed order (shards take every W-th). */
export function runItems(
  files: readonly string[],
  seedsPerFile: number,
  generated: number,
  residents: number,
): RunItem[] {
  const items: RunItem[] = [];
  for (const file of files)
    for (let seed = 1; seed <= seedsPerFile; seed += 1) items.push({ part: 'scenarios', file, seed });
  for (let index = 1; index <= generated; index += 1) items.push({ part: 'generated', index });
  for (let index = 1; index <= residents; index += 1) items.push({ part: 'residents', index });
  return items;
}

/** Samples the generators once per process and loads each scenario file once. */
export class ScenarioSource {
  private readonly files = new Map<string, Scenario>();
  private generatedJson: ScenarioFile[] = [];
  private residentJson: ScenarioFile[] = [];

  constructor(generated: number, residents: number) {
    if (generated > 0) this.generatedJson = sample(scenarioJsonArb, generated);
    if (residents > 0) this.residentJson = sample(residentScenarioArb, residents);
  }

  /** The scenario of `item` as a file's JSON (a generated one) or null (a scenario file, already on disk). */
  json(item: RunItem): ScenarioFile | null {
    switch (item.part) {
      case 'scenarios':
        return null;
      case 'generated':
        return this.generatedJson[item.index - 1] ?? null;
      case 'residents':
        return this.residentJson[item.index - 1] ?? null;
    }
  }

  scenario(item: RunItem): Scenario {
    if (item.part !== 'scenarios') {
      const json = this.json(item);
      if (json === null) throw new Error(`no ${item.part} scenario ${item.index}`);
      return parsed(json);
    }
    const known = this.files.get(item.file);
    if (known !== undefined) return known;
    const loaded = loadScenarioFile(item.file);
    if (!loaded.ok) throw new Error(`${item.file}: ${JSON.stringify(loaded.problems)}`);
    this.files.set(item.file, loaded.scenario);
    return loaded.scenario;
  }
}

function sample(arb: fc.Arbitrary<ScenarioFile>, count: number): ScenarioFile[] {
  return fc.sample(arb, { seed: GENERATED_SEED, numRuns: count }).map((json, k) => ({ ...json, seed: k + 1 }));
}

export function itemName(item: RunItem): string {
  return item.part === 'scenarios' ? item.file : `${item.part}-${item.index}`;
}

export function itemSeed(item: RunItem): number {
  return item.part === 'scenarios' ? item.seed : item.index;
}

/** One --swarm run's verdict; a run that throws (a kernel assertion, say) is a CRASH violation. */
export async function runOne(item: RunItem, scenario: Scenario): Promise<RunVerdict> {
  const seed = itemSeed(item);
  const base = { part: item.part, scenario: itemName(item), seed };
  try {
    const outcome = await runScenario(scenario, { seed, swarm: true });
    if (outcome.kind !== 'report') throw new Error(`unusable scenario: ${JSON.stringify(outcome.problems)}`);
    const { report, record } = outcome;
    return { ...base, ...verdictOf(scenario, report), reached: reachedStates(report, record.events) };
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return {
      ...base,
      violations: [{ invariant: 'CRASH', message }],
      lost: [],
      sites: Swarm.forSeed(seed).active,
      reached: [],
    };
  }
}

/**
 * The swarm verdicts of one report: its violations, less those the scenario itself expects (a scenario
 * written to reach LIMIT reaches it under the swarm too), and the tasks `oneTerminal` names.
 */
function verdictOf(scenario: Scenario, report: Report): Pick<RunVerdict, 'violations' | 'lost' | 'sites'> {
  const expected = new Set(scenario.expect.violations ?? []);
  const oneTerminal = report.expectations.find((x) => x.name === 'oneTerminal');
  const lost = Array.isArray(oneTerminal?.actual) ? (oneTerminal.actual as string[]) : [];
  return {
    violations: report.violations
      .filter((v) => !expected.has(v.invariant))
      .map((v) => ({ invariant: v.invariant, message: v.message })),
    lost,
    sites: report.swarm?.sites ?? [],
  };
}

export function failed(v: Pick<RunVerdict, 'violations' | 'lost'>): boolean {
  return v.violations.length > 0 || v.lost.length > 0;
}
