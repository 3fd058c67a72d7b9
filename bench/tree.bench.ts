/**
 * How the agent tree's cost grows with its size: the E3 flagship
 * (scenarios/e3-resident-flagship.json), and an E3-like workload scaled to 8, 64 and 256 residents —
 * each resident owns its inputch and gets 12 rounds one second apart, every fourth round notifies the
 * parent (an L3 on the root), the root sends a status request to every other resident (an L4 on each)
 * and lists its children at the end, then stops at the drain.
 *
 * Two measures per size, each the median of a few runs:
 *   simulator   the whole `runScenario`: kernel, Runtime, fakes, monitors, trace hash, report, and a
 *               temp store (an SQLite file) per resident, created and deleted;
 *   kernel      the same inputs through the kernel and the Runtime with the fake model on a virtual
 *               clock and the simulator's cancel tokens, children created through the door without
 *               memory, trace events counted and nothing else: the tree's own cost. A sample of a
 *               smaller tree repeats its workload until it holds as many events as the largest
 *               tree's, so each size is timed over the same volume of work; its "trace events" are
 *               those of the whole sample.
 * Flat means the cost per trace event stays the same across sizes; `relative` is the CPU time per
 * event over the 8-resident run's (CPU time, because wall time on a busy machine also counts waiting
 * for a core). Run alone with `npm run bench:tree`; `npm run bench` runs it with the others.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { macrotaskDrainer } from './drain.ts';
import { VirtualClock } from '../src/clock/index.ts';
import { Kernel } from '../src/kernel/kernel.ts';
import { Runtime } from '../src/runtime/runtime.ts';
import { CancelToken } from '../src/sim/cancel-token.ts';
import { FakeProvider, type FakeReply } from '../src/sim/fakes/model.ts';
import { FakeToolRunner } from '../src/sim/fakes/tools.ts';
import { loadScenarioFile, parseScenario, type Scenario } from '../src/sim/scenario/index.ts';
import { runScenario, scenarioKernelConfig } from '../src/sim/simulation.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const E3 = resolve(ROOT, 'scenarios/e3-resident-flagship.json');
export const TREE_SIZES = [8, 64, 256] as const;
const ROUNDS = 12;
const NOTIFY_EVERY = 4;

export interface TreeBenchRow {
  readonly label: string;
  readonly residents: number;
  readonly events: number;
  readonly medianMs: number;
  readonly eventsPerSec: number;
  readonly usPerEvent: number;
  /**
   * The process's CPU time per trace event in its cheapest run: on a loaded machine wall time also
   * counts the time the process waited for a core, CPU time does not.
   */
  readonly cpuUsPerEvent: number;
  /** cpuUsPerEvent over the 8-resident run's of the same measure: 1 when the cost per event is flat. */
  readonly relative: number;
}

export interface TreeBenchResult {
  readonly e3: TreeBenchRow;
  readonly simulator: readonly TreeBenchRow[];
  readonly kernel: readonly TreeBenchRow[];
}

/** The E3-like workload with `n` residents, as a scenario file would hold it. */
export function e3LikeDoc(n: number): Record<string, unknown> {
  const ids = Array.from({ length: n }, (_, i) => `r${i + 1}`);
  const inputs: Record<string, unknown>[] = [];
  ids.forEach((id, i) => {
    for (let k = 1; k <= ROUNDS; k += 1) {
      const input: Record<string, unknown> = {
        id: `${id}-${k}`,
        class: 'queued',
        source: 'chat',
        channel: `chat/${id}`,
        text: `message ${k} for ${id}`,
        at: k * 1000 + (i % 500),
      };
      if (k % NOTIFY_EVERY === 0) {
        input.replies = [
          { tools: [{ name: 'notify_parent', args: { text: `${id}: round ${k} needs a look` } }] },
          { text: `${id} round ${k} reported` },
        ];
      }
      inputs.push(input);
    }
  });
  const sends = ids
    .filter((_, i) => i % 2 === 0)
    .map((id) => ({ name: 'resident_agents', args: { action: 'send', id, text: 'status please' } }));
  inputs.push({
    id: 'dispatch',
    class: 'queued',
    source: 'cli',
    text: 'ask the residents for a status',
    at: 2500,
    replies: [{ tools: sends }, { text: 'status requested' }],
  });
  inputs.push({
    id: 'list',
    class: 'queued',
    source: 'cli',
    text: 'who is still running?',
    at: (ROUNDS + 1) * 1000 + 500,
    replies: [{ tools: [{ name: 'resident_agents', args: { action: 'list' } }] }, { text: 'listed' }],
  });
  return {
    version: 1,
    name: `e3-like-${n}`,
    seed: 3,
    // The root takes every resident: the tree's width is what this bench scales.
    kernel: { maxChildren: n },
    model: { firstChunkMs: 50, chunkMs: 10, chunks: 2 },
    channels: ids.map((id) => ({ name: `chat/${id}`, plugin: 'chat' })),
    residents: ids.map((id) => ({ id, inputChs: [`chat/${id}`] })),
    inputs,
    expect: { allTerminal: true },
  };
}

function scenarioOf(doc: Record<string, unknown>): Scenario {
  const parsed = parseScenario(doc);
  if (!parsed.ok) throw new Error(`bench scenario unusable: ${JSON.stringify(parsed.problems)}`);
  return parsed.scenario;
}

function loadE3(): Scenario {
  const loaded = loadScenarioFile(E3);
  if (!loaded.ok) throw new Error(`E3 scenario unusable: ${JSON.stringify(loaded.problems)}`);
  return loaded.scenario;
}

/**
 * The scenario's tree and inputs through the kernel and the Runtime alone: channels registered and
 * residents created through the door at 0, each input submitted by a virtual timer at its time, the
 * root stopped once every timer has fired. Returns the trace events.
 */
export async function kernelOnly(scenario: Scenario, drain: () => Promise<void>): Promise<number> {
  const clock = new VirtualClock();
  let events = 0;
  const kernel = new Kernel(scenarioKernelConfig(scenario), { emit: () => (events += 1) });
  const replies = new Map<string, FakeReply[]>();
  for (const input of scenario.inputs) {
    replies.set(
      input.id,
      input.replies.map((r) => ({ text: r.text, ...(r.tools.length > 0 ? { tools: r.tools } : {}) })),
    );
  }
  const provider = new FakeProvider({
    clock,
    seed: scenario.seed,
    model: scenario.model,
    faults: { modelErrorRate: 0, modelIgnoresCancelRate: 0, modelStallRate: 0 },
    replies: (_agent, task) => replies.get(task) ?? [{ text: `ok ${task}` }],
  });
  const tools = new FakeToolRunner({
    clock,
    seed: scenario.seed,
    tools: {},
    faults: { toolPanicRate: 0, toolFailRate: 0 },
  });
  // Cancellation as the simulator has it (src/sim/world.ts): a token per call, not an AbortController.
  const runtime = new Runtime(kernel, { clock, provider, tools, cancellation: () => new CancelToken() });
  for (const c of scenario.channels)
    runtime.feed({ type: 'channel.register', channel: { name: c.name, plugin: c.plugin ?? c.name } });
  for (const r of scenario.residents)
    runtime.feed({ type: 'child.create', spec: { id: r.id, inputChs: r.inputChs ?? [] } });
  for (const input of scenario.inputs) {
    if (input.timing.kind !== 'at') throw new Error(`bench input ${input.id} must have an "at" time`);
    const sub = {
      id: input.id,
      cls: input.class,
      text: input.text ?? `input ${input.id}`,
      source: input.source,
      channel: input.channel,
    };
    clock.setTimer(input.timing.at, () => runtime.submit(sub));
  }
  await drain();
  while (clock.runNext()) await drain();
  runtime.stop();
  await drain();
  if (kernel.hasPendingWork()) throw new Error(`${scenario.name}: work left after the root stopped`);
  return events;
}

export async function runTreeBench(): Promise<TreeBenchResult> {
  const e3 = loadE3();
  const scaled = TREE_SIZES.map((n) => scenarioOf(e3LikeDoc(n)));
  const { drain, close } = macrotaskDrainer();
  const events = new Map<string, number>();
  const cpuMs = new Map<string, number>();
  /** Runs `run` and keeps the least CPU time any of its runs took. */
  const timed = async (label: string, run: () => Promise<number>): Promise<void> => {
    const before = process.cpuUsage();
    const n = await run();
    const used = process.cpuUsage(before);
    cpuMs.set(label, Math.min(cpuMs.get(label) ?? Number.POSITIVE_INFINITY, (used.user + used.system) / 1000));
    events.set(label, n);
  };
  // Few iterations: the largest run takes seconds, and the shape of the growth is what is measured.
  const bench = new Bench({ time: 0, iterations: 3, warmup: false });
  const simulate = (label: string, scenario: Scenario): void => {
    bench.add(label, () =>
      timed(label, async () => {
        const out = await runScenario(scenario);
        if (out.kind !== 'report' || !out.report.ok)
          throw new Error(`${label} does not pass; fix it before benchmarking`);
        return out.report.events;
      }),
    );
  };
  simulate('E3 flagship', e3);
  for (const s of scaled) simulate(`simulator ${s.residents.length}`, s);
  // A kernel run of 8 residents takes a few milliseconds, short enough for one timer tick or one
  // collection to double it: each sample repeats the smaller workloads until it holds as many events
  // as the largest, so every size is timed over the same volume of work.
  const largest = Math.max(...TREE_SIZES);
  for (const s of scaled) {
    const label = `kernel ${s.residents.length}`;
    const repeats = Math.ceil(largest / s.residents.length);
    bench.add(label, () =>
      timed(label, async () => {
        let n = 0;
        for (let i = 0; i < repeats; i += 1) n += await kernelOnly(s, drain);
        return n;
      }),
    );
  }
  // One untimed run of each first, so that the smallest size does not also pay for compiling the code.
  await runScenario(scaled[0] as Scenario);
  await kernelOnly(scaled[0] as Scenario, drain);
  await bench.run();
  close();

  const row = (label: string, residents: number, base: number | null): TreeBenchRow => {
    const result = bench.tasks.find((t) => t.name === label)?.result;
    if (result === undefined || !('latency' in result)) throw new Error(`no result for ${label}`);
    const medianMs = result.latency.p50 ?? result.latency.mean;
    const n = events.get(label) ?? 0;
    const usPerEvent = (medianMs * 1000) / n;
    const cpuUsPerEvent = ((cpuMs.get(label) ?? 0) * 1000) / n;
    return {
      label,
      residents,
      events: n,
      medianMs,
      eventsPerSec: (n / medianMs) * 1000,
      usPerEvent,
      cpuUsPerEvent,
      relative: base === null ? 1 : cpuUsPerEvent / base,
    };
  };
  const series = (prefix: string): TreeBenchRow[] => {
    const first = row(`${prefix} ${TREE_SIZES[0]}`, TREE_SIZES[0], null);
    return [first, ...TREE_SIZES.slice(1).map((n) => row(`${prefix} ${n}`, n, first.cpuUsPerEvent))];
  };
  return {
    e3: row('E3 flagship', e3.residents.length, null),
    simulator: series('simulator'),
    kernel: series('kernel'),
  };
}

export function formatTreeTable(r: TreeBenchResult): string {
  const line = (x: TreeBenchRow, relative: boolean): string =>
    `| ${x.label} | ${x.residents} | ${x.events} | ${x.medianMs.toFixed(1)} ms | ${Math.round(x.eventsPerSec).toLocaleString('en-US')} | ${x.usPerEvent.toFixed(2)} µs | ${x.cpuUsPerEvent.toFixed(2)} µs | ${relative ? `${x.relative.toFixed(2)}x` : ''} |`;
  return [
    '| run | residents | trace events | wall (median) | events/s | wall per event | CPU per event (best) | CPU per event vs 8 |',
    '|:--|--:|--:|--:|--:|--:|--:|--:|',
    line(r.e3, false),
    ...r.simulator.map((x) => line(x, true)),
    ...r.kernel.map((x) => line(x, true)),
  ].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatTreeTable(await runTreeBench()));
}
