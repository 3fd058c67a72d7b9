/**
 * The simulated world of one run: the composition root of the simulator (STYLE rule 10).
 *
 * Theory of operation. `SimWorld` builds, from a scenario and the run's options, everything the run
 * loop drives: a VirtualClock (with the seeded tie-shuffle when asked), the kernel with its effective
 * configuration, the trace sinks, the root's main graph memory, the seeded fake provider and tools,
 * the Runtime that is the kernel's only feeder, and the agenda of external inputs. Nothing lives at
 * module level, so an in-process sweep equals separate processes (ARCHITECTURE recipe, rule 9).
 *
 * The kernel traces into the monitors (the invariant monitors and the RESPONSE monitor, response/),
 * which pass every event on to the recorder (the run's event list), the hasher (and the optional trace
 * file) and the trigger engine, and then add their own violations as trace events: the monitors sit
 * in front, so their violations are traced and hashed too.
 *
 * `close()` releases what the world holds outside the process: the trace file, the SQLite store and
 * its temporary directory.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VirtualClock } from '../clock/index.ts';
import {
  InvariantMonitor,
  Kernel,
  MemoryError,
  type ChildMemory,
  type ChildMemoryFactory,
  resolveKernelConfig,
  type KernelConfig,
  type KernelInput,
  type TraceEvent,
  type TraceSink,
} from '../kernel/index.ts';
import { LazyGraphStore } from '../memory/lazy-store.ts';
import { memoryPorts } from '../memory/parsers.ts';
import { ChildMemoryDir } from '../memory/child-memory.ts';
import { Runtime } from '../runtime/runtime.ts';
import { FakeProvider, type FakeReply } from './fakes/model.ts';
import { FakeToolRunner, toolSpecs, type FakeToolDef } from './fakes/tools.ts';
import { Agenda } from './inputs/agenda.ts';
import { TriggerEngine } from './inputs/triggers.ts';
import { Rng } from './rng.ts';
import { ResponseMonitor } from './response/monitor.ts';
import { SimMonitors } from './response/sink.ts';
import { createRunTempDir } from './run-temp-dir.ts';
import type { Reply, Scenario } from './scenario/index.ts';
import { TraceHasher } from '../trace-file/index.ts';
import { Swarm } from './swarm.ts';
import { insideTripwire } from './tripwire.ts';
import { SimKernelDoor, type SnapshotCut } from './kernel-door.ts';

export interface SimOptions {
  /** Overrides the scenario's seed. */
  readonly seed?: number;
  /** Permute timers due at the same instant with the seeded RNG (explores interleavings). */
  readonly shuffleTies?: boolean;
  /** After each drain, run one more macrotask round and fail if anything moved. */
  readonly checkDrain?: boolean;
  /** Write the canonical trace (with a header line) to this file. */
  readonly tracePath?: string;
  /** The command line that reproduces the run, for the report. */
  readonly command?: string;
  /** Activate a seeded subset of the fault sites (swarm.ts); the scenario's own `expect` counts stop being verdicts. */
  readonly swarm?: boolean;
  /** Told of every input the Runtime feeds through the kernel's door, with its time (a journal tap). */
  readonly onInput?: (input: KernelInput, nowMs: number) => void;
  /** Replace the kernel by its own restored snapshot once, mid-run (kernel-door.ts); the trace must not change. */
  readonly snapshotCut?: SnapshotCut;
}

/** The effective kernel configuration of a scenario (after defaults). */
export function scenarioKernelConfig(s: Scenario): KernelConfig {
  const outputs = s.outputs.map((o) => ({ name: o.name, caps: o.caps ?? ['text'] }));
  return resolveKernelConfig({
    ...s.kernel,
    builtinPlugins: s.builtinPlugins,
    tools: toolSpecs(toolDefsOf(s)),
    outputs,
    verify: true,
  });
}

export class SimWorld {
  readonly seed: number;
  readonly clock: VirtualClock;
  readonly config: KernelConfig;
  /** Every trace event of the run, in order. */
  readonly events: TraceEvent[] = [];
  readonly hasher: TraceHasher;
  /** The invariant monitors and the RESPONSE monitor (response/), in front of the recorder. */
  readonly monitor: SimMonitors;
  readonly triggers: TriggerEngine;
  /** The kernel behind the Runtime's door: the one built here, or its restored snapshot after a cut. */
  private readonly door: SimKernelDoor;
  readonly provider: FakeProvider;
  readonly runtime: Runtime;
  readonly agenda: Agenda;
  /** The fault swarm of a `--swarm` run, else null. */
  readonly swarm: Swarm | null;
  private readonly mainMemory: LazyGraphStore;
  private memoryDir: string | null = null;

  constructor(
    readonly scenario: Scenario,
    opts: SimOptions,
  ) {
    this.seed = opts.seed ?? scenario.seed;
    this.swarm = opts.swarm === true ? Swarm.forSeed(this.seed) : null;
    const ties = opts.shuffleTies === true ? Rng.derive(this.seed, 'ties') : null;
    this.clock = new VirtualClock(ties === null ? {} : { tieShuffle: () => ties.next() });
    this.config = scenarioKernelConfig(scenario);
    this.hasher = new TraceHasher(
      opts.tracePath === undefined
        ? {}
        : { path: opts.tracePath, header: { scenario: scenario.name, seed: this.seed, reportVersion: 1 } },
    );
    // The agenda is built last (it needs the Runtime); the triggers reach it only once the run starts.
    this.triggers = new TriggerEngine(
      scenario.inputs,
      this.clock,
      (input) => this.agenda.injectInput(input),
      (input) => this.agenda.markSubmitted(input.id),
    );
    const record: TraceSink = {
      emit: (e) => {
        this.events.push(e);
        this.hasher.emit(e);
        this.triggers.observe(e);
      },
    };
    this.monitor = new SimMonitors(
      record,
      new InvariantMonitor({ builtinPlugins: scenario.builtinPlugins }),
      ResponseMonitor.forRun(scenario, this.config, this.swarm === null ? null : this.swarm.active),
    );
    // The root's main graph memory: an empty SQLite file of this run, deleted when the run ends.
    this.mainMemory = new LazyGraphStore(() => this.mainPath(), { synchronous: 'normal' });
    // Each resident's temp store lives beside main, under residents/<id>/, and goes with its child; a
    // kernel restored from a snapshot (a snapshot cut) is given back the stores its children had.
    const childStores = new Map<string, ChildMemory>();
    const childMemory: ChildMemoryFactory = {
      create: (child) => {
        this.mainMemory.ensureOpen();
        const store = new ChildMemoryDir(this.memoryDir as string, () => this.mainPath()).create(child);
        childStores.set(child, store);
        return store;
      },
      reopen: (child) => {
        const store = childStores.get(child);
        if (store === undefined) throw new MemoryError(`no light memory was made for child ${child} in this run`);
        return store;
      },
    };
    const ports = { memory: memoryPorts(this.mainMemory), childMemory };
    this.door = new SimKernelDoor(
      new Kernel(this.config, this.monitor, ports),
      opts.snapshotCut ?? null,
      () => this.events.length,
      (snapshot) => Kernel.restore(snapshot, this.monitor, ports),
    );
    const repliesById = new Map<string, readonly FakeReply[]>();
    for (const input of scenario.inputs) repliesById.set(input.id, input.replies.map(fakeReply));
    for (const [task, replies] of Object.entries(scenario.kernelReplies)) repliesById.set(task, replies.map(fakeReply));
    this.provider = new FakeProvider({
      clock: this.clock,
      seed: this.seed,
      model: scenario.model,
      faults: scenario.faults,
      replies: (_agent, task) => repliesById.get(task) ?? [{ text: `ok ${task}` }],
      swarm: this.swarm,
    });
    const tools = new FakeToolRunner({
      clock: this.clock,
      seed: this.seed,
      tools: toolDefsOf(scenario),
      faults: scenario.faults,
      swarm: this.swarm,
    });
    this.runtime = new Runtime(
      this.door,
      { clock: this.clock, provider: this.provider, tools },
      // Every reaction runs under the determinism trip-wire: ambient time or randomness reached from
      // inside the kernel throws at its call site and fails the run as FATAL.
      opts.onInput === undefined
        ? { guardKernel: insideTripwire }
        : { onInput: opts.onInput, guardKernel: insideTripwire },
    );
    const door = this.door;
    this.agenda = new Agenda(scenario, this.seed, {
      clock: this.clock,
      get kernel() {
        return door.kernel;
      },
      runtime: this.runtime,
      triggers: this.triggers,
      swarm: this.swarm,
    });
  }

  /** The kernel the run drives now (after a snapshot cut, the restored one). */
  get kernel(): Kernel {
    return this.door.kernel;
  }

  private mainPath(): string {
    this.memoryDir ??= createRunTempDir();
    return join(this.memoryDir, 'main.sqlite');
  }

  /** Children whose temp store still exists (CHILD: temp memory goes with its child). */
  childStoresLeft(): string[] {
    if (this.memoryDir === null) return [];
    const dir = join(this.memoryDir, 'residents');
    return existsSync(dir) ? readdirSync(dir) : [];
  }

  /**
   * Flushes the trace file and deletes the run's SQLite store; the world is unusable afterwards. The
   * store goes even when the trace file fails its last write (a full disk), which is then thrown.
   */
  close(): void {
    try {
      this.hasher.close();
    } finally {
      this.mainMemory.close();
      if (this.memoryDir !== null) rmSync(this.memoryDir, { recursive: true, force: true });
    }
  }
}

function toolDefsOf(s: Scenario): Record<string, FakeToolDef> {
  const tools: Record<string, FakeToolDef> = {};
  for (const t of s.tools) tools[t.name] = t;
  return tools;
}

function fakeReply(r: Reply): FakeReply {
  return {
    text: r.text,
    ...(r.tools.length > 0 ? { tools: r.tools } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.firstChunkMs !== undefined ? { firstChunkMs: r.firstChunkMs } : {}),
  };
}
