/**
 * The swarm campaign: the long fault-swarm check that `npm test` does not run (scripts/swarm-campaign.sh
 * starts it; README "Swarm campaign").
 *
 *   npx tsx scripts/swarm-campaign.ts [--seeds N] [--workers W] [--part e4|generated|both] [--out DIR]
 *
 * Two parts, each over N seeds (10 000 unless told):
 *  - e4: `homeagent sim sweep scenarios/e4-priority-stress.json --seeds 1..N --swarm --json` on W
 *    workers; every failing seed is run again here for its whole report.
 *  - generated: the generated-scenario property's scenarios (properties/scenario-arbitrary.ts), each
 *    run under the swarm. Scenario i (1..N) is the i-th value of `fc.sample(scenarioJsonArb, {seed: GENERATED_SEED})`
 *    with its `seed` set to i, so the swarm's active sites are those of seed i. With W > 1 the indices
 *    are split over W processes of this script (index ≡ k mod W).
 *
 * A run passes when it has no violation and every submitted task has exactly one terminal event (the
 * `oneTerminal` verdict of a `--swarm` run). The summary counts runs, the runs that failed, the
 * violations by invariant, the lost tasks (submitted without exactly one terminal), runs/s and wall
 * time; each failure is written to DIR as a scenario file with the command that reproduces it. Exit 0
 * when nothing failed, 1 otherwise.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadScenarioFile, type Scenario } from '../src/sim/scenario/index.ts';
import type { Report } from '../src/sim/report/index.ts';
import { runScenario } from '../src/sim/simulation.ts';
import { Swarm } from '../src/sim/swarm.ts';
import { scenarioJsonArb } from '../properties/scenario-arbitrary.ts';
import type { ScenarioJson } from '../properties/scenario-json.ts';
import { parsed } from '../properties/scenario-checks.ts';

/** The fast-check seed of the generated scenarios: fixed, so a campaign is the same every time. */
const GENERATED_SEED = 20_251_111;
const E4 = 'scenarios/e4-priority-stress.json';

interface Options {
  readonly seeds: number;
  readonly workers: number;
  readonly part: 'e4' | 'generated' | 'both';
  readonly out: string;
  /** Internal: run only the generated indices ≡ index (mod count) and print their results as JSON. */
  readonly shard: { readonly index: number; readonly count: number } | null;
}

/** One run's verdict, as the campaign counts it. */
interface RunVerdict {
  readonly seed: number;
  readonly violations: readonly { readonly invariant: string; readonly message: string }[];
  /** Submitted tasks without exactly one terminal event. */
  readonly lost: readonly string[];
  readonly sites: readonly string[];
}

interface PartSummary {
  readonly part: string;
  readonly runs: number;
  readonly failedRuns: number;
  readonly violations: number;
  readonly violationsByInvariant: Readonly<Record<string, number>>;
  readonly lostTasks: number;
  readonly runsPerSecond: number;
  readonly wallMs: number;
  readonly failures: readonly (RunVerdict & { readonly command: string })[];
}

/** The swarm verdicts of one report: its violations and the tasks `oneTerminal` names. */
function verdictOf(report: Report): RunVerdict {
  const oneTerminal = report.expectations.find((x) => x.name === 'oneTerminal');
  const lost = Array.isArray(oneTerminal?.actual) ? (oneTerminal.actual as string[]) : [];
  return {
    seed: report.seed,
    violations: report.violations.map((v) => ({ invariant: v.invariant, message: v.message })),
    lost,
    sites: report.swarm?.sites ?? [],
  };
}

/** One --swarm run's verdict; a run that throws (a kernel assertion, say) is a CRASH violation. */
async function swarmVerdict(scenario: Scenario, seed: number): Promise<RunVerdict> {
  try {
    const outcome = await runScenario(scenario, { seed, swarm: true });
    if (outcome.kind !== 'report') throw new Error(`unusable scenario: ${JSON.stringify(outcome.problems)}`);
    return verdictOf(outcome.report);
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { seed, violations: [{ invariant: 'CRASH', message }], lost: [], sites: Swarm.forSeed(seed).active };
  }
}

function failed(v: RunVerdict): boolean {
  return v.violations.length > 0 || v.lost.length > 0;
}

function summarize(part: string, runs: number, wallMs: number, failures: PartSummary['failures']): PartSummary {
  const byInvariant: Record<string, number> = {};
  for (const f of failures)
    for (const v of f.violations) byInvariant[v.invariant] = (byInvariant[v.invariant] ?? 0) + 1;
  return {
    part,
    runs,
    failedRuns: failures.length,
    violations: failures.reduce((n, f) => n + f.violations.length, 0),
    violationsByInvariant: byInvariant,
    lostTasks: failures.reduce((n, f) => n + f.lost.length, 0),
    runsPerSecond: Math.round((runs * 1000 * 10) / Math.max(wallMs, 1)) / 10,
    wallMs: Math.round(wallMs),
    failures,
  };
}

// ---------------------------------------------------------------- part 1: the E4 sweep

interface SweepFailure {
  readonly seed: number;
  readonly firstFailure: string | null;
}

async function e4Part(opts: Options): Promise<PartSummary> {
  const started = performance.now();
  const args = [
    'bin/homeagent.js',
    'sim',
    'sweep',
    E4,
    '--seeds',
    `1..${opts.seeds}`,
    '--swarm',
    '--workers',
    String(opts.workers),
    '--json',
  ];
  const { stdout, code } = await capture(process.execPath, args);
  if (code !== 0 && code !== 1) throw new Error(`sim sweep exited ${String(code)}`);
  const summary = JSON.parse(stdout) as { runs: number; failures: SweepFailure[] };
  const wallMs = performance.now() - started;
  const loaded = loadScenarioFile(E4);
  if (!loaded.ok) throw new Error(`${E4}: ${JSON.stringify(loaded.problems)}`);
  const failures = [];
  for (const f of summary.failures) {
    const verdict = await swarmVerdict(loaded.scenario, f.seed);
    failures.push({ ...verdict, command: `npx homeagent sim run ${E4} --seed ${f.seed} --swarm` });
  }
  return summarize('e4 sweep', summary.runs, wallMs, failures);
}

// ---------------------------------------------------------------- part 2: generated scenarios

/** The generated scenario of index i (1-based), its seed set to i. */
function generatedScenarios(count: number): ScenarioJson[] {
  return fc
    .sample(scenarioJsonArb, { seed: GENERATED_SEED, numRuns: count })
    .map((json, k) => ({ ...json, seed: k + 1 }));
}

async function generatedShard(
  seeds: number,
  index: number,
  count: number,
  out: string,
): Promise<{ runs: number; failures: PartSummary['failures'] }> {
  const all = generatedScenarios(seeds);
  const failures = [];
  let runs = 0;
  for (let i = index; i <= seeds; i += count) {
    const json = all[i - 1] as ScenarioJson;
    const verdict = await swarmVerdict(parsed(json), i);
    runs += 1;
    if (!failed(verdict)) continue;
    mkdirSync(out, { recursive: true });
    const file = join(out, `generated-${i}.json`);
    writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
    failures.push({ ...verdict, command: `npx homeagent sim run ${file} --swarm` });
  }
  return { runs, failures };
}

async function generatedPart(opts: Options): Promise<PartSummary> {
  const started = performance.now();
  if (opts.workers <= 1) {
    const { runs, failures } = await generatedShard(opts.seeds, 1, 1, opts.out);
    return summarize('generated', runs, performance.now() - started, failures);
  }
  const shards = await Promise.all(
    Array.from({ length: opts.workers }, async (_, k) => {
      const args = [
        '--import',
        'tsx',
        'scripts/swarm-campaign.ts',
        '--seeds',
        String(opts.seeds),
        '--out',
        opts.out,
        '--shard',
        `${k + 1}/${opts.workers}`,
      ];
      const { stdout, code } = await capture(process.execPath, args);
      if (code !== 0) throw new Error(`generated shard ${k + 1}/${opts.workers} exited ${String(code)}`);
      return JSON.parse(stdout) as { runs: number; failures: PartSummary['failures'] };
    }),
  );
  const failures = shards.flatMap((s) => s.failures).sort((a, b) => a.seed - b.seed);
  return summarize(
    'generated',
    shards.reduce((n, s) => n + s.runs, 0),
    performance.now() - started,
    failures,
  );
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
  const part = value('--part') ?? 'both';
  if (part !== 'e4' && part !== 'generated' && part !== 'both')
    throw new Error(`--part must be e4, generated or both, got ${part}`);
  const shardText = value('--shard');
  const m = shardText === undefined ? null : /^([0-9]+)\/([0-9]+)$/.exec(shardText);
  const shard = m === null ? null : { index: Number(m[1]), count: Number(m[2]) };
  return {
    seeds: int('--seeds', 10_000),
    workers: int('--workers', 1),
    part,
    out: value('--out') ?? 'reports/swarm-campaign',
    shard,
  };
}

function formatPart(s: PartSummary): string {
  const lines = [
    `${s.part}: ${s.runs} runs, ${s.failedRuns} failed, ${s.violations} violation(s), ${s.lostTasks} lost task(s); ` +
      `${s.runsPerSecond} runs/s, wall ${(s.wallMs / 1000).toFixed(1)} s`,
  ];
  const by = Object.entries(s.violationsByInvariant);
  if (by.length > 0) lines.push(`  violations by invariant: ${by.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  for (const f of s.failures.slice(0, 20)) {
    const first = f.violations[0];
    const what = first !== undefined ? `${first.invariant}: ${first.message}` : `lost tasks ${f.lost.join(', ')}`;
    lines.push(`  seed ${f.seed} [${f.sites.join(', ')}] ${what}`, `    ${f.command}`);
  }
  if (s.failures.length > 20) lines.push(`  … and ${s.failures.length - 20} more (see the JSON summary)`);
  return lines.join('\n');
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts.shard !== null) {
    const result = await generatedShard(opts.seeds, opts.shard.index, opts.shard.count, opts.out);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const parts: PartSummary[] = [];
  if (opts.part !== 'generated') parts.push(await e4Part(opts));
  if (opts.part !== 'e4') parts.push(await generatedPart(opts));
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(
    join(opts.out, 'summary.json'),
    `${JSON.stringify({ seeds: opts.seeds, workers: opts.workers, parts }, null, 2)}\n`,
  );
  process.stdout.write(`${parts.map(formatPart).join('\n')}\nsummary: ${join(opts.out, 'summary.json')}\n`);
  return parts.every((p) => p.failedRuns === 0) ? 0 : 1;
}

process.exitCode = await main();
