/**
 * Simulator speed, all measured in one process run (tinybench), except the sweep, which is timed
 * through the real CLI because its workers are separate threads:
 *
 *   E4 wall time           the full `runScenario` of scenarios/e4-priority-stress.json: kernel,
 *                          Runtime, fakes, monitors, trace hash, report and expectations. Median.
 *   simulated-to-wall      E4's virtual time over that median wall time.
 *   trace events/s         E4's trace events over that median wall time (every event passes through
 *                          the Runtime, the kernel, the hash and the monitors).
 *   Runtime pipeline       the kernel (verify on, as in simulation) behind the Runtime with the fake
 *                          model and a trace hash, and nothing else of the simulator (no monitors,
 *                          triggers, generator, report): 200 inputs (half queued, half interrupts
 *                          L1–L4) at t = 0 with E4's model timing, drained timer by timer. Trace
 *                          events per second through the Runtime.
 *   drain                  one macrotask drain (the MessageChannel ping between two timer firings),
 *                          and the VirtualClock's own cost per timer (setTimer + runNext): together the
 *                          fixed cost the simulator pays per timer.
 *   sweep                  `homeagent sim sweep` of E4 over a range of seeds on 1 and on 2 workers:
 *                          runs per second and trace events per second (the sweep's own
 *                          `eventsPerSecond`); E3 (the resident tree, with graph memory) on 1 worker,
 *                          and its cost per event relative to E4's.
 *   DES loop               a one-await discrete-event loop (binary heap, 64 agents, des-baseline.ts):
 *                          events per second, and the E4 one-worker sweep's events per second as a
 *                          fraction of it.
 *   allocation per E4 run  bytes allocated by one warm `runScenario` of E4 (allocation.ts).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { macrotaskDrainer } from './drain.ts';
import { allocatedBytesPer } from './allocation.ts';
import { DES_AGENTS, runDesLoop } from './des-baseline.ts';
import { VirtualClock } from '../src/clock/index.ts';
import { Kernel } from '../src/kernel/kernel.ts';
import { Runtime } from '../src/runtime/runtime.ts';
import { FakeProvider } from '../src/sim/fakes/model.ts';
import { FakeToolRunner } from '../src/sim/fakes/tools.ts';
import { TraceHasher } from '../src/trace-file/index.ts';
import { loadScenarioFile, type Scenario } from '../src/sim/scenario/index.ts';
import { runScenario } from '../src/sim/simulation.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const E4 = resolve(ROOT, 'scenarios/e4-priority-stress.json');
const E3 = resolve(ROOT, 'scenarios/e3-resident-flagship.json');
const DES_EVENTS_PER_ITERATION = 100_000;
const ALLOCATION_RUNS = 20;
const DRAINS_PER_ITERATION = 1000;
const TIMERS_PER_ITERATION = 1000;
const SWEEP_SEEDS = '1..200';

export interface SimBenchResult {
  readonly pipelineMs: number;
  readonly pipelineEvents: number;
  readonly pipelineEventsPerSec: number;
  readonly e4MedianMs: number;
  readonly e4Events: number;
  readonly e4VirtualMs: number;
  readonly simulatedToWall: number;
  readonly eventsPerSec: number;
  readonly drainUs: number;
  readonly timerUs: number;
  readonly sweep: readonly SweepRate[];
  readonly e3Sweep: SweepRate;
  readonly desEventsPerSec: number;
  readonly e4AllocatedBytes: number;
}

interface SweepRate {
  readonly workers: number;
  readonly runsPerSecond: number;
  readonly eventsPerSecond: number;
  readonly hashes: number;
}

function loadE4(): Scenario {
  const loaded = loadScenarioFile(E4);
  if (!loaded.ok) throw new Error(`E4 scenario unusable: ${JSON.stringify(loaded.problems)}`);
  return loaded.scenario;
}

export async function runSimBench(): Promise<SimBenchResult> {
  const scenario = loadE4();
  const first = await runScenario(scenario);
  if (first.kind !== 'report' || !first.report.ok) throw new Error('E4 does not pass; fix it before benchmarking');
  const { events, virtualMs, traceHash } = first.report;

  const { drain, close } = macrotaskDrainer();

  const bench = new Bench({ time: 2000, warmupTime: 500 });
  bench.add('E4 run', async () => {
    const out = await runScenario(scenario);
    if (out.kind !== 'report' || out.report.traceHash !== traceHash) throw new Error('E4 changed between runs');
  });
  let pipelineEvents = 0;
  bench.add('Runtime pipeline', async () => {
    pipelineEvents = await runtimePipeline(drain);
  });
  bench.add(`drain x${DRAINS_PER_ITERATION}`, async () => {
    for (let i = 0; i < DRAINS_PER_ITERATION; i++) await drain();
  });
  bench.add(`virtual timer x${TIMERS_PER_ITERATION}`, () => {
    const clock = new VirtualClock();
    let fired = 0;
    for (let i = 0; i < TIMERS_PER_ITERATION; i++) clock.setTimer(i % 97, () => (fired += 1));
    while (clock.runNext());
    if (fired !== TIMERS_PER_ITERATION) throw new Error('timers lost');
  });
  bench.add(`DES loop x${DES_EVENTS_PER_ITERATION}`, async () => {
    await runDesLoop(DES_EVENTS_PER_ITERATION);
  });
  await bench.run();
  close();
  const e4AllocatedBytes = await allocatedBytesPer(ALLOCATION_RUNS, async () => {
    await runScenario(scenario);
  });

  const median = (name: string): number => {
    const task = bench.tasks.find((t) => t.name === name);
    const result = task?.result;
    if (result === undefined || !('latency' in result)) throw new Error(`no result for ${name}`);
    return result.latency.p50 ?? result.latency.mean;
  };
  const e4MedianMs = median('E4 run');
  const pipelineMs = median('Runtime pipeline');
  return {
    pipelineMs,
    pipelineEvents,
    pipelineEventsPerSec: (pipelineEvents / pipelineMs) * 1000,
    e4MedianMs,
    e4Events: events,
    e4VirtualMs: virtualMs,
    simulatedToWall: virtualMs / e4MedianMs,
    eventsPerSec: (events / e4MedianMs) * 1000,
    drainUs: (median(`drain x${DRAINS_PER_ITERATION}`) * 1000) / DRAINS_PER_ITERATION,
    timerUs: (median(`virtual timer x${TIMERS_PER_ITERATION}`) * 1000) / TIMERS_PER_ITERATION,
    sweep: [1, 2].map((workers) => sweepRate(E4, workers)),
    e3Sweep: sweepRate(E3, 1),
    desEventsPerSec: (DES_EVENTS_PER_ITERATION / median(`DES loop x${DES_EVENTS_PER_ITERATION}`)) * 1000,
    e4AllocatedBytes,
  };
}

/** 200 inputs through Kernel + Runtime + fake model on a VirtualClock; returns the trace events. */
async function runtimePipeline(drain: () => Promise<void>): Promise<number> {
  const clock = new VirtualClock();
  const hasher = new TraceHasher();
  const kernel = new Kernel({ verify: true }, hasher);
  const provider = new FakeProvider({
    clock,
    seed: 1,
    model: { firstChunkMs: [300, 900], chunkMs: [20, 50], chunks: 4, cancelAware: true, cancelLagMs: 0 },
    faults: { modelErrorRate: 0, modelIgnoresCancelRate: 0, modelStallRate: 0 },
    replies: (_agent, task) => [{ text: `ok ${task}` }],
  });
  const tools = new FakeToolRunner({ clock, seed: 1, tools: {}, faults: { toolPanicRate: 0, toolFailRate: 0 } });
  const runtime = new Runtime(kernel, { clock, provider, tools });
  for (let i = 0; i < 200; i++) {
    const queued = i % 2 === 0;
    runtime.submit(
      queued
        ? { id: `q${i}`, cls: 'queued', text: `input ${i}`, source: 'cli' }
        : { id: `i${i}`, cls: 'interrupt', level: ((i >> 1) % 4) + 1, text: `input ${i}`, source: 'cli' },
    );
  }
  await drain();
  while (clock.runNext()) await drain();
  runtime.stop();
  await drain();
  hasher.digest();
  return hasher.events;
}

/** Times the real CLI sweep; the rates it reports exclude process start-up. */
function sweepRate(file: string, workers: number): SweepRate {
  const out = spawnSync(
    process.execPath,
    ['bin/homeagent.js', 'sim', 'sweep', file, '--seeds', SWEEP_SEEDS, '--workers', String(workers), '--json'],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (out.status !== 0) throw new Error(`sweep failed (exit ${String(out.status)}): ${out.stderr}`);
  const doc = JSON.parse(out.stdout) as {
    runsPerSecond: number;
    eventsPerSecond: number;
    hashes: Record<string, string>;
  };
  return {
    workers,
    runsPerSecond: doc.runsPerSecond,
    eventsPerSecond: doc.eventsPerSecond,
    hashes: Object.keys(doc.hashes).length,
  };
}

function perSecond(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

export function formatSimTable(r: SimBenchResult): string {
  const e4One = r.sweep.find((s) => s.workers === 1) as SweepRate;
  const lines = [
    '| measure | value |',
    '|:--|--:|',
    `| E4 wall time (median) | ${r.e4MedianMs.toFixed(2)} ms |`,
    `| E4 virtual time | ${r.e4VirtualMs} ms |`,
    `| simulated-to-wall ratio | ${Math.round(r.simulatedToWall)}x |`,
    `| trace events per run | ${r.e4Events} |`,
    `| trace events per second (full E4 run) | ${Math.round(r.eventsPerSec).toLocaleString('en-US')} |`,
    `| Runtime pipeline: ${r.pipelineEvents} events (median) | ${r.pipelineMs.toFixed(2)} ms |`,
    `| trace events per second through the Runtime | ${Math.round(r.pipelineEventsPerSec).toLocaleString('en-US')} |`,
    `| drain (MessageChannel ping) | ${r.drainUs.toFixed(2)} µs |`,
    `| VirtualClock setTimer + runNext | ${r.timerUs.toFixed(3)} µs |`,
    ...r.sweep.map(
      (s) =>
        `| sweep E4, seeds ${SWEEP_SEEDS}, ${s.workers} worker(s) | ${s.runsPerSecond.toFixed(1)} runs/s, ${perSecond(s.eventsPerSecond)} events/s |`,
    ),
    `| sweep E3, seeds ${SWEEP_SEEDS}, 1 worker | ${r.e3Sweep.runsPerSecond.toFixed(1)} runs/s, ${perSecond(r.e3Sweep.eventsPerSecond)} events/s |`,
    `| E3 cost per event ÷ E4's (1-worker sweeps) | ${(e4One.eventsPerSecond / r.e3Sweep.eventsPerSecond).toFixed(2)}x |`,
    `| one-await DES loop, binary heap, ${DES_AGENTS} agents | ${perSecond(r.desEventsPerSec)} events/s |`,
    `| E4 sweep events/s ÷ DES loop events/s (1 worker) | ${(e4One.eventsPerSecond / r.desEventsPerSec).toFixed(3)} |`,
    `| allocated per E4 run (warm) | ${(r.e4AllocatedBytes / 1e6).toFixed(2)} MB |`,
  ];
  return lines.join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatSimTable(await runSimBench()));
}
