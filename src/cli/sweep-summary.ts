/**
 * The summary document of a sweep (`sim sweep --json`, docs/spec.md §12.1) and how shard summaries merge into
 * one (`sim merge`).
 *
 * Theory of operation: a summary is plain data built once from the per-seed results, and it carries
 * the sums that its rates are made of (`wallMs`, `virtualMs`, `runsWallMs`), not only the rates, so
 * that merging shards recomputes the rates exactly instead of averaging rounded ones. Everything that
 * decides which seeds a sweep ran and how (`scenario`, `seeds`, `shard.count`, `shuffleTies`, `swarm`) must be
 * the same in every shard of one sweep; `mergeSummaries` refuses anything else, and refuses a set of
 * shards that is not exactly 1/n … n/n: a CI matrix that lost a job must not merge into a green sweep.
 * A complete merge describes the whole sweep, so its `shard` is 1/1 and its totals (runs, failures,
 * hashes) are the ones the unsharded sweep gives.
 *
 * Key order of the document is the order of the literal in `buildSummary` (and `mergeSummaries`): the
 * fields of the first version come first, as they were, and the later ones follow.
 */
import { REACHED_STATES, type ReachedState } from '../sim/report/index.ts';
import type { SeedResult } from './sweep-seed.ts';

export interface SummaryFailure {
  readonly seed: number;
  readonly firstFailure: string | null;
  readonly traceHash: string | null;
  /** The command line that re-runs this seed as the sweep ran it. */
  readonly command: string;
  /** Under `--swarm`: the fault sites this seed activated. */
  readonly swarm?: readonly string[] | undefined;
}

export interface SweepSummary {
  readonly scenario: string;
  readonly seeds: { readonly from: number; readonly to: number };
  readonly shard: { readonly index: number; readonly count: number };
  /** Runners used (the main thread included); for a merge, the sum over its shards. */
  readonly workers: number;
  readonly runs: number;
  /** In seed order. */
  readonly failures: readonly SummaryFailure[];
  /** runs × 1000 / wallMs. */
  readonly runsPerSecond: number;
  /** virtualMs / runsWallMs; null when no run took measurable wall time. */
  readonly simulatedToWall: number | null;
  /** seed → trace hash (null for a crashed seed); integer keys, so JSON lists them in seed order. */
  readonly hashes: Readonly<Record<string, string | null>>;
  readonly summaryVersion: 1;
  readonly shuffleTies: boolean;
  /** Wall time of the sweep, worker start-up included; for a merge, the sum over its shards (machine time). */
  readonly wallMs: number;
  /** Σ virtualMs of the runs. */
  readonly virtualMs: number;
  /** Σ wallMs of the runs themselves. */
  readonly runsWallMs: number;
  /** How many sweep summaries this one is made of: 1 for a sweep, n for a merge of n shards. */
  readonly mergedFrom: number;
  /** Whether the sweep ran with `--swarm` (swarm.ts). */
  readonly swarm: boolean;
  /** For every listed interesting state (report/reached.ts), in list order: how many runs reached it. */
  readonly reached: Readonly<Record<ReachedState, number>>;
  /** Σ trace events of the runs. */
  readonly events: number;
  /** events × 1000 / wallMs. */
  readonly eventsPerSecond: number;
}

/** What a sweep knows besides its results. */
export type SweepIdentity = Pick<SweepSummary, 'scenario' | 'seeds' | 'shard' | 'workers' | 'shuffleTies' | 'swarm'> & {
  readonly command: (seed: number) => string;
};

/** `results` in seed order; `elapsedMs` the sweep's wall time. */
export function buildSummary(id: SweepIdentity, results: readonly SeedResult[], elapsedMs: number): SweepSummary {
  let virtualMs = 0;
  let runsWallMs = 0;
  let events = 0;
  const hashes: Record<string, string | null> = {};
  const reached = noneReached();
  for (const r of results) {
    for (const state of r.reached) reached[state] += 1;
    virtualMs += r.virtualMs;
    events += r.events;
    runsWallMs += r.wallMs;
    hashes[String(r.seed)] = r.traceHash;
  }
  const failures = results
    .filter((r) => !r.ok)
    .map((r) => ({
      seed: r.seed,
      firstFailure: r.firstFailure,
      traceHash: r.traceHash,
      command: id.command(r.seed),
      ...(r.swarm === null ? {} : { swarm: r.swarm }),
    }));
  const wallMs = round3(elapsedMs);
  return {
    scenario: id.scenario,
    seeds: { from: id.seeds.from, to: id.seeds.to },
    shard: { index: id.shard.index, count: id.shard.count },
    workers: id.workers,
    runs: results.length,
    failures,
    runsPerSecond: rate(results.length, wallMs),
    simulatedToWall: runsWallMs > 0 ? round3(virtualMs / runsWallMs) : null,
    hashes,
    summaryVersion: 1,
    shuffleTies: id.shuffleTies,
    wallMs,
    virtualMs,
    runsWallMs: round3(runsWallMs),
    mergedFrom: 1,
    swarm: id.swarm,
    reached,
    events,
    eventsPerSecond: rate(events, wallMs),
  };
}

export type MergeResult =
  { readonly ok: true; readonly summary: SweepSummary } | { readonly ok: false; readonly problems: string[] };

/** Shard summaries of one sweep → the summary of the whole sweep (see the file comment). */
export function mergeSummaries(parts: readonly SweepSummary[]): MergeResult {
  const first = parts[0];
  if (first === undefined) return { ok: false, problems: ['no summary to merge'] };
  const problems = compatibilityProblems(first, parts);
  if (problems.length > 0) return { ok: false, problems };

  const sorted = [...parts].sort((a, b) => a.shard.index - b.shard.index);
  let runs = 0;
  let workers = 0;
  let wallMs = 0;
  let virtualMs = 0;
  let runsWallMs = 0;
  let events = 0;
  const failures: SummaryFailure[] = [];
  const hashes: Record<string, string | null> = {};
  const reached = noneReached();
  for (const p of sorted) {
    for (const state of REACHED_STATES) reached[state] += p.reached[state];
    runs += p.runs;
    workers += p.workers;
    wallMs += p.wallMs;
    virtualMs += p.virtualMs;
    runsWallMs += p.runsWallMs;
    events += p.events;
    failures.push(...p.failures);
    Object.assign(hashes, p.hashes);
  }
  failures.sort((a, b) => a.seed - b.seed);
  wallMs = round3(wallMs);
  runsWallMs = round3(runsWallMs);
  return {
    ok: true,
    summary: {
      scenario: first.scenario,
      seeds: { from: first.seeds.from, to: first.seeds.to },
      shard: { index: 1, count: 1 },
      workers,
      runs,
      failures,
      runsPerSecond: rate(runs, wallMs),
      simulatedToWall: runsWallMs > 0 ? round3(virtualMs / runsWallMs) : null,
      hashes,
      summaryVersion: 1,
      shuffleTies: first.shuffleTies,
      wallMs,
      virtualMs,
      runsWallMs,
      mergedFrom: sorted.reduce((n, p) => n + p.mergedFrom, 0),
      swarm: first.swarm,
      reached,
      events,
      eventsPerSecond: rate(events, wallMs),
    },
  };
}

function compatibilityProblems(first: SweepSummary, parts: readonly SweepSummary[]): string[] {
  const problems: string[] = [];
  const differ = (what: string, show: (s: SweepSummary) => string): void => {
    const values = [...new Set(parts.map(show))];
    if (values.length > 1) problems.push(`the summaries are of different sweeps: ${what} ${values.join(' vs ')}`);
  };
  differ('scenario', (s) => JSON.stringify(s.scenario));
  differ('seeds', (s) => `${s.seeds.from}..${s.seeds.to}`);
  differ('shard count', (s) => String(s.shard.count));
  differ('shuffle-ties', (s) => String(s.shuffleTies));
  differ('swarm', (s) => String(s.swarm));
  if (problems.length > 0) return problems;

  const count = first.shard.count;
  const seen = new Map<number, number>();
  for (const p of parts) seen.set(p.shard.index, (seen.get(p.shard.index) ?? 0) + 1);
  const repeated = [...seen].filter(([, n]) => n > 1).map(([i]) => `${i}/${count}`);
  if (repeated.length > 0) problems.push(`shard ${repeated.join(', ')} given more than once`);
  const missing: string[] = [];
  for (let i = 1; i <= count; i += 1) if (!seen.has(i)) missing.push(`${i}/${count}`);
  if (missing.length > 0)
    problems.push(
      `shard ${missing.join(', ')} missing: merge every shard of the sweep (1/${count} … ${count}/${count})`,
    );
  return problems;
}

/** Every listed state at 0, in list order (the key order of the document). */
function noneReached(): Record<ReachedState, number> {
  const counts = {} as Record<ReachedState, number>;
  for (const state of REACHED_STATES) counts[state] = 0;
  return counts;
}

function rate(runs: number, wallMs: number): number {
  return wallMs > 0 ? round3((runs * 1000) / wallMs) : 0;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
