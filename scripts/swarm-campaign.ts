/**
 * The swarm campaign: the long fault-swarm check that `npm test` does not run (scripts/swarm-campaign.sh
 * starts it; docs/testing.md "Swarm campaign").
 *
 *   npx tsx scripts/swarm-campaign.ts [--seeds N] [--scenario-seeds S] [--workers W]
 *                                     [--part e4,scenarios,generated,residents] [--out DIR]
 *
 * Four parts, every one under the swarm:
 *  - e4: `homeagent sim sweep scenarios/e4-priority-stress.json --seeds 1..N --swarm --json` on W workers;
 *    every failing seed is run again here for its whole report.
 *  - scenarios: every scenario file under scenarios/ and scenarios/regressions/, at seeds 1..S each.
 *  - generated: N generated root scenarios (stops, tools, MCP servers, crashes; swarm-campaign/runs.ts).
 *  - residents: N generated scenarios with resident and rt children.
 * The last three run in this process, or on W processes of this script that each take every W-th run.
 *
 * A run passes when it has no violation its scenario does not expect and every submitted task has exactly
 * one terminal event (the `oneTerminal` verdict of a `--swarm` run). The summary counts, per part, runs,
 * failed runs, violations by invariant, lost tasks, runs/s and wall time, and how many runs reached each
 * listed "sometimes" state (src/sim/report/reached.ts; per file for the scenarios part). Each failing
 * generated scenario is written to DIR with the command that reproduces it. Exit 0 when no run failed and
 * every listed state was reached somewhere in the campaign, 1 otherwise.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenarioFile } from '../src/sim/scenario/index.ts';
import type { ReachedState } from '../src/sim/report/index.ts';
import {
  failed,
  itemName,
  itemSeed,
  runItems,
  runOne,
  scenarioFiles,
  ScenarioSource,
  type InProcessPart,
} from './swarm-campaign/runs.ts';
import {
  addRun,
  formatPart,
  mergeTallies,
  neverReached,
  noneReached,
  summarize,
  type Failure,
  type PartSummary,
  type PartTally,
} from './swarm-campaign/tally.ts';

const E4 = 'scenarios/e4-priority-stress.json';
const PARTS = ['e4', 'scenarios', 'generated', 'residents'] as const;
type Part = (typeof PARTS)[number];
const IN_PROCESS: readonly InProcessPart[] = ['scenarios', 'generated', 'residents'];

interface Options {
  readonly seeds: number;
  readonly scenarioSeeds: number;
  readonly workers: number;
  readonly parts: readonly Part[];
  readonly out: string;
  /** Internal: run only the in-process runs ≡ index (mod count) and print their tallies as JSON. */
  readonly shard: { readonly index: number; readonly count: number } | null;
}

// ---------------------------------------------------------------- the E4 sweep

interface SweepSummary {
  readonly runs: number;
  readonly failures: readonly { readonly seed: number }[];
  readonly reached: Record<ReachedState, number>;
}

async function e4Part(opts: Options): Promise<PartSummary> {
  const started = performance.now();
  const args = ['bin/homeagent.js', 'sim', 'sweep', E4, '--seeds', `1..${opts.seeds}`, '--swarm'];
  const { stdout, code } = await capture(process.execPath, [...args, '--workers', String(opts.workers), '--json']);
  if (code !== 0 && code !== 1) throw new Error(`sim sweep exited ${String(code)}`);
  const sweep = JSON.parse(stdout) as SweepSummary;
  const wallMs = performance.now() - started;
  const loaded = loadScenarioFile(E4);
  if (!loaded.ok) throw new Error(`${E4}: ${JSON.stringify(loaded.problems)}`);
  const failures: Failure[] = [];
  for (const f of sweep.failures) {
    const { reached: _reached, ...verdict } = await runOne(
      { part: 'scenarios', file: E4, seed: f.seed },
      loaded.scenario,
    );
    failures.push({ ...verdict, command: `npx homeagent sim run ${E4} --seed ${f.seed} --swarm` });
  }
  // `sim sweep` runs on W workers; its wall time stands for its runs' time on one worker.
  const runMs = wallMs * opts.workers;
  return summarize(
    { part: 'e4', runs: sweep.runs, runMs, failures, reached: { ...noneReached(), ...sweep.reached }, byScenario: {} },
    wallMs,
  );
}

// ---------------------------------------------------------------- the in-process parts

type MutableTally = {
  part: string;
  runs: number;
  runMs: number;
  failures: Failure[];
  reached: Record<ReachedState, number>;
  byScenario: Record<string, ReachedState[]>;
};

/** The runs ≡ index (mod count) of the in-process parts asked for, tallied per part. */
async function shard(opts: Options, index: number, count: number): Promise<PartTally[]> {
  const wanted = (p: InProcessPart): boolean => opts.parts.includes(p);
  const files = wanted('scenarios') ? scenarioFiles('scenarios') : [];
  const generated = wanted('generated') ? opts.seeds : 0;
  const residents = wanted('residents') ? opts.seeds : 0;
  const source = new ScenarioSource(generated, residents);
  const tallies = new Map<InProcessPart, MutableTally>(
    IN_PROCESS.filter(wanted).map((p) => [
      p,
      { part: p, runs: 0, runMs: 0, failures: [], reached: noneReached(), byScenario: {} },
    ]),
  );
  const items = runItems(files, opts.scenarioSeeds, generated, residents);
  for (let i = index - 1; i < items.length; i += count) {
    const item = items[i];
    if (item === undefined) break;
    const scenario = source.scenario(item);
    const startedMs = performance.now();
    const verdict = await runOne(item, scenario);
    const runMs = performance.now() - startedMs;
    const tally = tallies.get(item.part);
    if (tally === undefined) continue;
    const failure = failed(verdict) ? { ...withoutReached(verdict), command: reproduce(opts.out, source, item) } : null;
    addRun(tally, verdict, runMs, failure, item.part === 'scenarios');
  }
  return [...tallies.values()];
}

function withoutReached<T extends { reached: unknown }>(v: T): Omit<T, 'reached'> {
  const { reached: _reached, ...rest } = v;
  return rest;
}

/** The command that runs a failing run again; a generated scenario is written to DIR first. */
function reproduce(out: string, source: ScenarioSource, item: Parameters<ScenarioSource['json']>[0]): string {
  const json = source.json(item);
  if (json === null) return `npx homeagent sim run ${itemName(item)} --seed ${itemSeed(item)} --swarm`;
  mkdirSync(out, { recursive: true });
  const file = join(out, `${itemName(item)}.json`);
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  return `npx homeagent sim run ${file} --swarm`;
}

async function inProcessParts(opts: Options): Promise<PartSummary[]> {
  const started = performance.now();
  let shards: PartTally[][];
  if (opts.workers <= 1) shards = [await shard(opts, 1, 1)];
  else
    shards = await Promise.all(
      Array.from({ length: opts.workers }, async (_, k) => {
        const args = [
          '--import',
          'tsx',
          'scripts/swarm-campaign.ts',
          ...passOn(opts),
          '--shard',
          `${k + 1}/${opts.workers}`,
        ];
        const { stdout, code } = await capture(process.execPath, args);
        if (code !== 0) throw new Error(`shard ${k + 1}/${opts.workers} exited ${String(code)}`);
        return JSON.parse(stdout) as PartTally[];
      }),
    );
  const wallMs = performance.now() - started;
  return IN_PROCESS.filter((p) => opts.parts.includes(p)).map((p) =>
    summarize(
      mergeTallies(
        p,
        shards.map((s) => s.find((t) => t.part === p)).filter((t) => t !== undefined),
      ),
      wallMs,
    ),
  );
}

function passOn(opts: Options): string[] {
  return [
    '--seeds',
    String(opts.seeds),
    '--scenario-seeds',
    String(opts.scenarioSeeds),
    '--part',
    opts.parts.join(','),
    '--out',
    opts.out,
  ];
}

// ---------------------------------------------------------------- the command

function capture(command: string, args: readonly string[]): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, code }));
  });
}

function parseOptions(argv: readonly string[]): Options {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at < 0 ? undefined : argv[at + 1];
  };
  const int = (flag: string, fallback: number): number => {
    const text = value(flag);
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, got ${String(text)}`);
    return n;
  };
  const parts = (value('--part') ?? PARTS.join(',')).split(',');
  for (const p of parts)
    if (!(PARTS as readonly string[]).includes(p))
      throw new Error(`--part takes a list of ${PARTS.join(', ')}; got ${p}`);
  const shardText = value('--shard');
  const m = shardText === undefined ? null : /^([0-9]+)\/([0-9]+)$/.exec(shardText);
  return {
    seeds: int('--seeds', 10_000),
    scenarioSeeds: int('--scenario-seeds', 200),
    workers: int('--workers', 1),
    parts: parts as Part[],
    out: value('--out') ?? 'reports/swarm-campaign',
    shard: m === null ? null : { index: Number(m[1]), count: Number(m[2]) },
  };
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts.shard !== null) {
    process.stdout.write(`${JSON.stringify(await shard(opts, opts.shard.index, opts.shard.count))}\n`);
    return 0;
  }
  const parts: PartSummary[] = [];
  if (opts.parts.includes('e4')) parts.push(await e4Part(opts));
  if (IN_PROCESS.some((p) => opts.parts.includes(p))) parts.push(...(await inProcessParts(opts)));
  const never = neverReached(parts);
  mkdirSync(opts.out, { recursive: true });
  const summary = {
    seeds: opts.seeds,
    scenarioSeeds: opts.scenarioSeeds,
    workers: opts.workers,
    neverReached: never,
    parts,
  };
  writeFileSync(join(opts.out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const verdict =
    never.length === 0 ? 'every listed state was reached' : `never reached in the whole campaign: ${never.join(', ')}`;
  process.stdout.write(`${parts.map(formatPart).join('\n')}\n${verdict}\nsummary: ${join(opts.out, 'summary.json')}\n`);
  return parts.every((p) => p.failedRuns === 0) && never.length === 0 ? 0 : 1;
}

process.exitCode = await main();
