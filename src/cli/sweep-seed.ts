/**
 * One seed of a sweep, as the main thread and the sweep workers both run it, and the messages between
 * them. A seed's result is compact (no report) so that a million of them fit in memory and cross the
 * worker boundary cheaply; `sim run <file> --seed N` gives the full report of any one of them.
 *
 * A crash of the simulator on one seed is that seed's failure ("crash: …"), not the sweep's: finding
 * such seeds is what sweeps are for.
 */
import { reachedStates, type ReachedState } from '../sim/report/index.ts';
import type { Scenario } from '../sim/scenario/index.ts';
import { runScenario } from '../sim/simulation.ts';
import { reproduceCommand } from './cli-io.ts';
import { firstFailure, oneLine } from './outcome.ts';

export interface SeedResult {
  readonly seed: number;
  readonly ok: boolean;
  /** Null when the run crashed before producing a report. */
  readonly traceHash: string | null;
  readonly virtualMs: number;
  readonly wallMs: number;
  /** Trace events of the run; 0 for a crashed run. */
  readonly events: number;
  /** The first unexpected violation "INV: message", else the first failed expectation; null when ok. */
  readonly firstFailure: string | null;
  /** The active fault sites under `--swarm`, else null. */
  readonly swarm: readonly string[] | null;
  /** The listed interesting states (report/reached.ts) this run reached; none for a crashed run. */
  readonly reached: readonly ReachedState[];
}

/** What every worker receives once, as `workerData`. */
export interface SweepSetup {
  /** Validated in the main thread; plain data, so it crosses the thread boundary by structured clone. */
  readonly scenario: Scenario;
  /** The file as given on the command line, for the reproduce command in each report. */
  readonly file: string;
  readonly shuffleTies: boolean;
  readonly swarm: boolean;
}

export interface RunSeedMessage {
  readonly type: 'run';
  readonly seed: number;
}

export interface SeedResultMessage {
  readonly type: 'result';
  readonly result: SeedResult;
}

/** Sent once by a worker when its modules are loaded: from then on, seeds sent to it start at once. */
export interface WorkerReadyMessage {
  readonly type: 'ready';
}

export type WorkerMessage = WorkerReadyMessage | SeedResultMessage;

export async function runSeed(setup: SweepSetup, seed: number): Promise<SeedResult> {
  const started = performance.now();
  const crashed = (what: string): SeedResult => ({
    seed,
    ok: false,
    traceHash: null,
    virtualMs: 0,
    wallMs: roundMs(performance.now() - started),
    events: 0,
    firstFailure: oneLine(what),
    swarm: null,
    reached: [],
  });
  try {
    const command = reproduceCommand(setup.file, seed, setup.shuffleTies, setup.swarm);
    const outcome = await runScenario(setup.scenario, {
      seed,
      shuffleTies: setup.shuffleTies,
      swarm: setup.swarm,
      command,
    });
    if (outcome.kind === 'unusable')
      return crashed(`unusable: ${outcome.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    const { report, record } = outcome;
    return {
      seed,
      ok: report.ok,
      traceHash: report.traceHash,
      virtualMs: report.virtualMs,
      wallMs: report.wallMs,
      events: report.events,
      firstFailure: firstFailure(setup.scenario, report),
      swarm: report.swarm === undefined ? null : [...report.swarm.sites],
      reached: reachedStates(report, record.events),
    };
  } catch (err) {
    return crashed(`crash: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  }
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
