/**
 * `sim sweep --html-dir DIR`: the timeline of each failing seed. A sweep keeps no traces (a million
 * seeds would not fit), so each failing seed is run once more, in this thread, with a trace; runs are
 * deterministic, so the page shows the very run that failed. At most TIMELINES_MAX pages are written,
 * in seed order: past that, one more page says nothing the reproduce lines do not.
 *
 * The pages are named `<scenario name>-seed-<N>.html`, so a script can find them without parsing the
 * output.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../sim/scenario/index.ts';
import { runScenario } from '../sim/simulation.ts';
import { reproduceCommand } from './cli-io.ts';
import { TimelineTrace, timelineLink } from './sim-view.ts';
import type { SweepSetup } from './sweep-seed.ts';

/** Pages written by one sweep. */
export const TIMELINES_MAX = 50;

export function timelinePath(dir: string, scenarioName: string, seed: number): string {
  return join(dir, `${scenarioName.replace(/[^A-Za-z0-9._-]/g, '_')}-seed-${seed}.html`);
}

/**
 * Writes the pages of the first TIMELINES_MAX seeds; returns the lines that link them, a heading first
 * ("" when no seed failed).
 */
export async function writeFailureTimelines(setup: SweepSetup, seeds: readonly number[], dir: string): Promise<string> {
  if (seeds.length === 0) return '';
  mkdirSync(dir, { recursive: true });
  const lines: string[] = ['timelines of the failing seeds:'];
  for (const seed of seeds.slice(0, TIMELINES_MAX)) {
    const trace = new TimelineTrace(timelinePath(dir, setup.scenario.name, seed), undefined);
    const command = reproduceCommand(setup.file, seed, setup.shuffleTies, setup.swarm);
    try {
      const options = { seed, shuffleTies: setup.shuffleTies, swarm: setup.swarm, command, tracePath: trace.tracePath };
      const outcome = await runScenario(setup.scenario, options);
      lines.push(
        outcome.kind === 'report'
          ? `  seed ${seed}: ${timelineLink(trace.write())}`
          : `  seed ${seed}: no timeline (unusable scenario)`,
      );
    } catch (err) {
      // The seed crashed the simulator, as it did in the sweep; its trace file was never completed.
      trace.discard();
      lines.push(`  seed ${seed}: no timeline (the run crashed: ${err instanceof Error ? err.message : String(err)})`);
    }
  }
  if (seeds.length > TIMELINES_MAX)
    lines.push(`  … ${seeds.length - TIMELINES_MAX} more failing seeds without a timeline (at most ${TIMELINES_MAX})`);
  return `${lines.join('\n')}\n`;
}

/** `--html-dir` must be a directory or not exist yet (it is created when a seed fails). */
export function htmlDirProblem(dir: string): Problem | null {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isDirectory())
    return { path: '--html-dir', message: `${dir} exists and is not a directory` };
  return null;
}
