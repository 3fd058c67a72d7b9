/** The `sim` command group: the simulator's subcommands (docs/spec.md §12.1). */
import type { Command } from 'commander';
import { registerSimMerge } from './sim-merge.ts';
import { registerSimReplay } from './sim-replay.ts';
import { registerSimRun } from './sim-run.ts';
import { registerSimSweep } from './sim-sweep.ts';
import { registerSimView } from './sim-view.ts';

export function registerSim(program: Command): void {
  const sim = program.command('sim').description('the deterministic simulator: run scenarios, sweep seeds');
  registerSimRun(sim);
  registerSimSweep(sim);
  registerSimView(sim);
  registerSimReplay(sim);
  registerSimMerge(sim);
}
