/**
 * The readable form of a sweep summary, printed by `sim sweep` and `sim merge` without `--json`: a
 * header, the failing seeds (each with its first failure and the command that re-runs it), then the
 * totals and rates.
 */
import { REACHED_STATES } from '../sim/report/index.ts';
import type { SweepSummary } from './sweep-summary.ts';

/** Failing seeds listed in the readable output; --json lists them all. */
const FAILURES_SHOWN_MAX = 200;

export function formatSweepSummary(s: SweepSummary): string {
  const lines: string[] = [];
  const shard = s.shard.count === 1 ? '' : `, shard ${s.shard.index}/${s.shard.count}`;
  const merged = s.mergedFrom > 1 ? `, merged from ${s.mergedFrom} shards` : '';
  const flags = `${s.shuffleTies ? ', shuffle-ties' : ''}${s.swarm ? ', swarm' : ''}`;
  lines.push(
    `sweep ${s.scenario}  seeds ${s.seeds.from}..${s.seeds.to}${shard}${merged}${flags}  workers ${s.workers}`,
  );
  if (s.failures.length > 0) {
    lines.push(`failing seeds (${s.failures.length}):`);
    for (const f of s.failures.slice(0, FAILURES_SHOWN_MAX)) {
      lines.push(`  seed ${f.seed}: ${f.firstFailure ?? 'failed'}`);
      if (f.swarm !== undefined)
        lines.push(`    swarm sites: ${f.swarm.length === 0 ? '(none active)' : f.swarm.join(', ')}`);
      lines.push(`    ${f.command}`);
    }
    if (s.failures.length > FAILURES_SHOWN_MAX) {
      lines.push(`  … and ${s.failures.length - FAILURES_SHOWN_MAX} more (--json lists them all)`);
    }
  }
  lines.push(...reachedLines(s));
  const ratio = s.simulatedToWall === null ? 'n/a' : `${s.simulatedToWall.toFixed(1)}×`;
  lines.push(
    `runs ${s.runs}, failures ${s.failures.length}, ${s.runsPerSecond.toFixed(1)} runs/s, simulated/wall ${ratio}, wall ${(s.wallMs / 1000).toFixed(2)} s`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * How many runs reached each listed state; a state no run reached is flagged, because the code behind it
 * went untested by this sweep however many seeds passed.
 */
function reachedLines(s: SweepSummary): string[] {
  if (s.runs === 0) return [];
  const width = Math.max(...REACHED_STATES.map((state) => state.length));
  const lines = [`reached states (runs of ${s.runs}):`];
  for (const state of REACHED_STATES) {
    const n = s.reached[state];
    lines.push(
      `  ${state.padEnd(width)}  ${String(n).padStart(String(s.runs).length)}${n === 0 ? '  never reached' : ''}`,
    );
  }
  const never = REACHED_STATES.filter((state) => s.reached[state] === 0);
  if (never.length > 0) lines.push(`never reached: ${never.join(', ')}`);
  return lines;
}
