/**
 * What a part of the swarm campaign found, added up: runs, failing runs with the command that reproduces
 * each, and how many runs reached each listed "sometimes" state (src/sim/report/reached.ts) — per part,
 * per scenario file, and over the whole campaign, which must reach every one of them.
 */
import { REACHED_STATES, type ReachedState } from '../../src/sim/report/index.ts';
import type { RunVerdict } from './runs.ts';

export type Failure = Omit<RunVerdict, 'reached'> & { readonly command: string };

export interface PartTally {
  readonly part: string;
  readonly runs: number;
  /** The runs' own wall time added up (on W workers, about W × the part's share of the wall time). */
  readonly runMs: number;
  readonly failures: readonly Failure[];
  readonly reached: Readonly<Record<ReachedState, number>>;
  /** The states each scenario file's runs reached, for the part over scenario files. */
  readonly byScenario: Readonly<Record<string, readonly ReachedState[]>>;
}

export interface PartSummary extends PartTally {
  readonly failedRuns: number;
  readonly violations: number;
  readonly violationsByInvariant: Readonly<Record<string, number>>;
  readonly lostTasks: number;
  /** Runs per second of one worker: runs over runMs. */
  readonly runsPerSecond: number;
  /** The wall time of the command that ran the part (shared by the parts that run in one process). */
  readonly wallMs: number;
}

export function noneReached(): Record<ReachedState, number> {
  return Object.fromEntries(REACHED_STATES.map((s) => [s, 0])) as Record<ReachedState, number>;
}

/** Adds one run to a part's tally (mutably: a shard builds its tallies run by run). */
export function addRun(
  tally: {
    runs: number;
    runMs: number;
    failures: Failure[];
    reached: Record<ReachedState, number>;
    byScenario: Record<string, ReachedState[]>;
  },
  verdict: RunVerdict,
  runMs: number,
  failure: Failure | null,
  perScenario: boolean,
): void {
  tally.runs += 1;
  tally.runMs += runMs;
  if (failure !== null) tally.failures.push(failure);
  for (const state of verdict.reached) tally.reached[state] += 1;
  if (!perScenario) return;
  const known = tally.byScenario[verdict.scenario] ?? [];
  tally.byScenario[verdict.scenario] = REACHED_STATES.filter((s) => known.includes(s) || verdict.reached.includes(s));
}

/** The shards' tallies of one part as one. */
export function mergeTallies(part: string, tallies: readonly PartTally[]): PartTally {
  const reached = noneReached();
  const byScenario: Record<string, ReachedState[]> = {};
  for (const t of tallies) {
    for (const s of REACHED_STATES) reached[s] += t.reached[s];
    for (const [file, states] of Object.entries(t.byScenario)) {
      const known = byScenario[file] ?? [];
      byScenario[file] = REACHED_STATES.filter((s) => known.includes(s) || states.includes(s));
    }
  }
  return {
    part,
    runs: tallies.reduce((n, t) => n + t.runs, 0),
    runMs: tallies.reduce((n, t) => n + t.runMs, 0),
    failures: tallies
      .flatMap((t) => t.failures)
      .sort((a, b) => a.scenario.localeCompare(b.scenario) || a.seed - b.seed),
    reached,
    byScenario,
  };
}

export function summarize(tally: PartTally, wallMs: number): PartSummary {
  const byInvariant: Record<string, number> = {};
  for (const f of tally.failures)
    for (const v of f.violations) byInvariant[v.invariant] = (byInvariant[v.invariant] ?? 0) + 1;
  return {
    ...tally,
    failedRuns: tally.failures.length,
    violations: tally.failures.reduce((n, f) => n + f.violations.length, 0),
    violationsByInvariant: byInvariant,
    lostTasks: tally.failures.reduce((n, f) => n + f.lost.length, 0),
    runsPerSecond: Math.round((tally.runs * 1000 * 10) / Math.max(tally.runMs, 1)) / 10,
    wallMs: Math.round(wallMs),
  };
}

/** The listed states no run of any part reached. */
export function neverReached(parts: readonly PartTally[]): ReachedState[] {
  return REACHED_STATES.filter((s) => parts.every((p) => p.reached[s] === 0));
}

export function formatPart(s: PartSummary): string {
  const lines = [
    `${s.part}: ${s.runs} runs, ${s.failedRuns} failed, ${s.violations} violation(s), ${s.lostTasks} lost task(s); ` +
      `${s.runsPerSecond} runs/s on one worker, wall ${(s.wallMs / 1000).toFixed(1)} s`,
  ];
  const by = Object.entries(s.violationsByInvariant);
  if (by.length > 0) lines.push(`  violations by invariant: ${by.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  for (const f of s.failures.slice(0, 20)) {
    const first = f.violations[0];
    const what = first !== undefined ? `${first.invariant}: ${first.message}` : `lost tasks ${f.lost.join(', ')}`;
    lines.push(`  ${f.scenario} seed ${f.seed} [${f.sites.join(', ')}] ${what}`, `    ${f.command}`);
  }
  if (s.failures.length > 20) lines.push(`  … and ${s.failures.length - 20} more (see the JSON summary)`);
  const reached = REACHED_STATES.filter((state) => s.reached[state] > 0);
  lines.push(`  reached: ${reached.map((state) => `${state} ${s.reached[state]}`).join(', ') || 'none'}`);
  for (const [file, states] of Object.entries(s.byScenario)) lines.push(`    ${file}: ${states.join(', ') || '-'}`);
  return lines.join('\n');
}
