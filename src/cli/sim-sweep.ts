/**
 * `homeagent sim sweep <scenario.json> --seeds A..B [--workers N] [--shard i/n] [--json] [--junit FILE]
 * [--shuffle-ties] [--html-dir DIR]` (docs/spec.md §12.1): runs one scenario over a range of seeds and lists the
 * failing ones; `--html-dir` also writes the timeline of each failing seed (sweep-timelines.ts), and
 * `--junit` the sweep as a JUnit XML report, one testcase per seed (sweep-junit.ts).
 *
 * Theory of operation: the flags and the scenario are validated once, here, before any worker starts
 * (exit 2 lists every problem, with `--json` as the unusable-input document). The seeds are A..B
 * inclusive; `--shard i/n` keeps those whose index in A..B is ≡ i−1 (mod n), so n machines given
 * 1/n … n/n run disjoint parts whose union is the whole range. The seeds run on `--workers` threads
 * (sweep-pool.ts); results are collected by seed and printed in seed order, so the output, apart from
 * the rates, does not depend on the worker count or on timing.
 *
 * Output: the failing seeds, each with its first failure and a ready-to-run `homeagent sim run` line;
 * then runs, failures, runs/s (over the sweep's wall time, worker start-up included), the
 * simulated-to-wall ratio (Σ virtualMs / Σ wallMs of the runs) and the wall time. With `--json`, the
 * summary document of sweep-summary.ts: `{ scenario, seeds: {from, to}, shard: {index, count}, workers,
 * runs, failures: [{seed, firstFailure, traceHash, command}], runsPerSecond, simulatedToWall, hashes:
 * {seed: hash}, summaryVersion, shuffleTies, wallMs, virtualMs, runsWallMs, mergedFrom, reached, events,
 * eventsPerSecond }`, where
 * `scenario` is the scenario's name (as in the run report), `workers` the number of workers actually
 * used (never more than the seeds to run; 1 means the main thread) and a crashed seed's hash is null;
 * `reached` counts the runs that reached each listed interesting state (sim/report/reached.ts), and the
 * readable output names the states no seed reached; `sim merge` combines the summaries of the shards of
 * one sweep (sim-merge.ts). `--workers` above
 * the machine's parallelism is capped to it, with a notice on stderr: threads beyond the cores only add
 * start-up time and memory (64 workers on 2 cores once took 114 s and 2.7 GB for a 1.25 s sweep).
 * `--workers auto` starts as many runners as CPUs are free (sweep-runners.ts), with a notice on stderr
 * when the load leaves fewer than the parallelism.
 * `--shrink [dir]` shrinks the first failing seed's scenario and writes it as a regression file
 * (sweep-shrink.ts); with `--json` the document then has a `shrunk` entry. `--junit` is checked with the
 * other flags, before any seed runs, and written as soon as the summary is known; the readable output
 * then ends with a line naming it.
 * Exit 0 when no seed failed, 1 when one did, 2 on unusable input.
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { Problem, Scenario } from '../sim/scenario/index.ts';
import { loadScenarioFile } from '../sim/scenario/index.ts';
import { unsupportedFeatures } from '../sim/simulation.ts';
import {
  EXIT_FAILED,
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
import { ProgressBar } from './sweep-progress.ts';
import { runSeeds } from './sweep-pool.ts';
import { autoRunners, type AutoRunners } from './sweep-runners.ts';
import type { SeedResult } from './sweep-seed.ts';
import { buildSummary, type SweepSummary } from './sweep-summary.ts';
import { junitReport } from './sweep-junit.ts';
import { outputFileProblem } from './output-file.ts';
import { formatSweepSummary } from './sweep-summary-text.ts';
import { htmlDirProblem, writeFailureTimelines } from './sweep-timelines.ts';
import type { ShrinkOutcome } from './sweep-shrink.ts';
import { REGRESSIONS_DIR } from '../sim/shrink/regression.ts';

/** Seeds in one sweep (A..B before sharding). */
export const SWEEP_SEEDS_MAX = 1_000_000;
/** Worker threads in one sweep. */
export const SWEEP_WORKERS_MAX = 256;

export interface SimSweepFlags {
  readonly seeds: string;
  readonly workers?: string;
  readonly shard?: string;
  readonly json?: boolean;
  readonly shuffleTies?: boolean;
  readonly swarm?: boolean;
  readonly htmlDir?: string;
  readonly shrink?: string | boolean;
  readonly junit?: string;
}

const EXAMPLES = `
Examples:
  # 200 seeds on every core; each failing seed is listed with the command that re-runs it
  $ npx homeagent sim sweep scenarios/e4-priority-stress.json --seeds 1..200 --workers auto
  # with random faults, shrinking the first failing seed into a regression scenario
  $ npx homeagent sim sweep scenarios/e4-priority-stress.json --seeds 1..2000 --workers auto --swarm --shrink
  # one shard of four (e.g. one CI job each), then the merge of the four summaries
  $ npx homeagent sim sweep scenarios/e4-priority-stress.json --seeds 1..10000 --shard 2/4 --json --junit junit-2.xml > shard-2.json
  $ npx homeagent sim merge shard-1.json shard-2.json shard-3.json shard-4.json
`;

export function registerSimSweep(sim: Command): void {
  sim
    .command('sweep')
    .description(
      'run a scenario over a range of seeds and list the failing ones (exit 0 none, 1 some, 2 unusable input)',
    )
    .argument('<scenario.json>', 'scenario file (docs/spec.md §12.2)')
    .requiredOption('--seeds <A..B>', `seeds A..B inclusive, non-negative integers, at most ${SWEEP_SEEDS_MAX}`)
    .option(
      '--workers <n>',
      'threads that run seeds (the main thread and n-1 workers); 0 or "auto" = the CPUs free now',
      '1',
    )
    .option('--shard <i/n>', 'run only the seeds whose index in A..B is i-1 modulo n', '1/1')
    .option('--json', 'print one JSON document on stdout, and nothing else')
    .option(
      '--junit <file>',
      'also write the sweep as a JUnit XML report: one testcase per seed, a failure per failing seed',
    )
    .option('--shuffle-ties', 'permute timers due at the same instant with the seeded RNG')
    .option(
      '--swarm',
      "activate a seeded subset of fault sites per seed; the scenario's expect counts stop being verdicts",
    )
    .option('--html-dir <dir>', 'write the timeline of each failing seed there, as <scenario>-seed-<N>.html')
    .option(
      '--shrink [dir]',
      `shrink the first failing seed's scenario with fast-check and write it under dir (default ${REGRESSIONS_DIR})`,
    )
    .addHelpText('after', EXAMPLES)
    .action(async (file: string, flags: SimSweepFlags) => {
      process.exitCode = await simSweep(file, flags);
    });
}

interface SweepPlan {
  readonly scenario: Scenario;
  readonly from: number;
  readonly to: number;
  readonly shard: { readonly index: number; readonly count: number };
  readonly seeds: readonly number[];
  readonly workers: number;
  /** Why fewer workers run than `--workers` asked for, when the machine's parallelism capped them. */
  readonly workersNotice: string | null;
}

export async function simSweep(file: string, flags: SimSweepFlags): Promise<ExitCode> {
  const json = flags.json === true;
  const planned = plan(file, flags);
  if (!planned.ok) {
    if (json) await writeJson(unusableDocument(planned.problems));
    else process.stderr.write(`${formatProblems(`homeagent sim sweep ${file}`, planned.problems)}\n`);
    return EXIT_UNUSABLE;
  }
  const p = planned.value;
  if (p.workersNotice !== null) process.stderr.write(`${p.workersNotice}\n`);
  const shuffleTies = flags.shuffleTies === true;
  const swarm = flags.swarm === true;
  const setup = { scenario: p.scenario, file, shuffleTies, swarm };

  const bySeed = new Map<number, SeedResult>();
  let failing = 0;
  const progress = new ProgressBar(p.seeds.length);
  const started = performance.now();
  await runSeeds(setup, p.seeds, p.workers, (result) => {
    bySeed.set(result.seed, result);
    if (!result.ok) failing += 1;
    progress.update(bySeed.size, failing);
  });
  progress.finish();
  const elapsedMs = performance.now() - started;

  const results = p.seeds.map((seed) => bySeed.get(seed)).filter((r): r is SeedResult => r !== undefined);
  const identity = {
    scenario: p.scenario.name,
    seeds: { from: p.from, to: p.to },
    shard: p.shard,
    workers: p.workers,
    shuffleTies,
    swarm,
    command: (seed: number) => reproduceCommand(file, seed, shuffleTies, swarm),
  };
  const summary = buildSummary(identity, results, elapsedMs);
  const junit = flags.junit === undefined ? '' : writeJunit(flags.junit, summary, results);
  if (typeof junit !== 'string') {
    if (json) await writeJson(unusableDocument([junit]));
    else process.stderr.write(`${formatProblems(`homeagent sim sweep ${file}`, [junit])}\n`);
    return EXIT_UNUSABLE;
  }
  const failingSeeds = summary.failures.map((r) => r.seed);
  const timelines = flags.htmlDir === undefined ? '' : await writeFailureTimelines(setup, failingSeeds, flags.htmlDir);
  const dir = shrinkDir(flags.shrink);
  const first = failingSeeds[0];
  let shrunk: ShrinkOutcome | null = null;
  let shrunkText = '';
  if (dir !== null && first !== undefined) {
    // The shrinker and fast-check load here: a sweep that does not shrink starts without them.
    const { shrinkFailingSeed, shrinkLines } = await import('./sweep-shrink.ts');
    shrunk = await shrinkFailingSeed(file, { seed: first, swarm, shuffleTies }, dir);
    shrunkText = shrinkLines(shrunk);
  }
  if (json) await writeJson(shrunk === null ? summary : { ...summary, shrunk });
  else await writeStdout(formatSweepSummary(summary) + timelines + shrunkText + junit);
  return summary.failures.length === 0 ? EXIT_OK : EXIT_FAILED;
}

/**
 * Writes the JUnit report; returns the line the readable output ends with, or the problem when the
 * file could not be written after all (a full disk): the sweep's verdict must not pass for reported.
 */
function writeJunit(path: string, summary: SweepSummary, results: readonly SeedResult[]): string | Problem {
  try {
    writeFileSync(path, junitReport(summary, results));
  } catch (err) {
    return { path: '--junit', message: `cannot write ${path}: ${err instanceof Error ? err.message : String(err)}` };
  }
  const failing = summary.failures.length;
  return `junit: ${path} (${results.length} testcase${results.length === 1 ? '' : 's'}, ${failing} failing)\n`;
}

// ---------------------------------------------------------------- validation

type Planned = { readonly ok: true; readonly value: SweepPlan } | { readonly ok: false; readonly problems: Problem[] };

function plan(file: string, flags: SimSweepFlags): Planned {
  const problems: Problem[] = [];
  const range = parseSeeds(flags.seeds, problems);
  const workers = parseWorkers(flags.workers ?? '1', problems);
  const shard = parseShard(flags.shard ?? '1/1', problems);
  const loaded = loadScenarioFile(file);
  if (!loaded.ok) problems.push(...loaded.problems);
  else problems.push(...unsupportedFeatures(loaded.scenario));
  const htmlDir = flags.htmlDir === undefined ? null : htmlDirProblem(flags.htmlDir);
  if (htmlDir !== null) problems.push(htmlDir);
  const junit =
    flags.junit === undefined
      ? null
      : outputFileProblem(flags.junit, '--junit', 'JUnit report', [{ what: 'scenario file', path: file }]);
  if (junit !== null) problems.push(junit);
  if (!loaded.ok || range === null || workers === null || shard === null || problems.length > 0)
    return { ok: false, problems };

  const seeds: number[] = [];
  for (let seed = range.from + shard.index - 1; seed <= range.to; seed += shard.count) seeds.push(seed);
  const runners = runnersFor(workers);
  const used = Math.max(1, Math.min(runners.runners, seeds.length));
  // Fewer seeds than runners is the reason then, not the machine.
  const workersNotice = used < runners.runners ? null : runners.notice;
  return {
    ok: true,
    value: { scenario: loaded.scenario, from: range.from, to: range.to, shard, seeds, workers: used, workersNotice },
  };
}

/** The runners `--workers` asks for, capped to the machine's parallelism, or for `auto` to its free CPUs. */
function runnersFor(workers: number | 'auto'): AutoRunners {
  const parallelism = availableParallelism();
  if (workers === 'auto') return autoRunners(parallelism, loadavg()[0] ?? 0);
  if (workers <= parallelism) return { runners: workers, notice: null };
  return {
    runners: parallelism,
    notice: `homeagent sim sweep: --workers ${workers} capped to ${parallelism}, this machine's available parallelism`,
  };
}

/** The directory `--shrink` writes to: its value, or the default when given without one. */
function shrinkDir(flag: string | boolean | undefined): string | null {
  if (flag === undefined || flag === false) return null;
  return flag === true ? REGRESSIONS_DIR : flag;
}

function parseSeeds(text: string, problems: Problem[]): { from: number; to: number } | null {
  const bad = (message: string): null => {
    problems.push({ path: '--seeds', message });
    return null;
  };
  const m = /^([0-9]+)\.\.([0-9]+)$/.exec(text);
  const from = m?.[1] === undefined ? null : parseNonNegativeInt(m[1]);
  const to = m?.[2] === undefined ? null : parseNonNegativeInt(m[2]);
  if (from === null || to === null)
    return bad(`must be A..B with non-negative integers A ≤ B, got ${JSON.stringify(text)}`);
  if (from > to) return bad(`the range ${text} is empty: A must be ≤ B`);
  if (to - from + 1 > SWEEP_SEEDS_MAX)
    return bad(
      `${to - from + 1} seeds; a sweep runs at most ${SWEEP_SEEDS_MAX} (split it with --shard or smaller ranges)`,
    );
  return { from, to };
}

function parseWorkers(text: string, problems: Problem[]): number | 'auto' | null {
  const n = text === 'auto' ? 0 : parseNonNegativeInt(text);
  if (n === null || n > SWEEP_WORKERS_MAX) {
    problems.push({
      path: '--workers',
      message: `must be an integer 0..${SWEEP_WORKERS_MAX} or "auto", got ${JSON.stringify(text)}`,
    });
    return null;
  }
  return n === 0 ? 'auto' : n;
}

function parseShard(text: string, problems: Problem[]): { index: number; count: number } | null {
  const m = /^([0-9]+)\/([0-9]+)$/.exec(text);
  const index = m?.[1] === undefined ? null : parseNonNegativeInt(m[1]);
  const count = m?.[2] === undefined ? null : parseNonNegativeInt(m[2]);
  if (index === null || count === null || index < 1 || index > count) {
    problems.push({ path: '--shard', message: `must be i/n with integers 1 ≤ i ≤ n, got ${JSON.stringify(text)}` });
    return null;
  }
  return { index, count };
}
