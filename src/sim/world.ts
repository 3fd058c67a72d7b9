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
 * A run that can crash (a scenario with `events[].crash`, or the `crash` swarm site) also has a
 * simulated process (crash/process.ts): the journal tap at the kernel's door, memory ports that can
 * answer a recovery's replay as recorded (crash/memory.ts), and a chained trace hash (crash/
 * trace-chain.ts). A crash cuts the run's trace back to its durable history; the monitors are then made
 * anew and shown that history again (muted: it is already recorded), so they stand where they stood at
 * its end, and whatever they had found in the lost events is kept aside for the report. A run that
 * cannot crash is wired exactly as before, and hashes as before.
 *
 * `close()` releases what the world holds outside the process: the trace file, the SQLite store and
 * its temporary directory.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VirtualClock } from '../clock/index.ts';
import {
  CheckedMonitor,
  Kernel,
  MemoryError,
  type ChildMemory,
  type ChildMemoryFactory,
  resolveKernelConfig,
  type KernelConfig,
  type KernelInput,
  type KernelPorts,
  type TraceEvent,
  type ToolRunner,
  type TraceSink,
  type Violation,
} from '../kernel/index.ts';
import { LazyGraphStore } from '../memory/lazy-store.ts';
import { CancelToken } from './cancel-token.ts';
import { memoryPorts } from '../memory/parsers.ts';
import { ChildMemoryDir } from '../memory/child-memory.ts';
import { Runtime } from '../runtime/runtime.ts';
import { FakeProvider, type FakeReply } from './fakes/model.ts';
import { FakeToolRunner, toolSpecs, type FakeToolDef } from './fakes/tools.ts';
import { mcpSpecsAt, SimMcpServers } from './fakes/mcp.ts';
import { OfferedTools } from '../tools/offered-tools.ts';
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
import { CrashMemory } from './crash/memory.ts';
import { SimProcess } from './crash/process.ts';
import { TraceChain } from './crash/trace-chain.ts';

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
    // The scenario's tools, then its MCP servers' as they list them at start: serve's order.
    tools: [...toolSpecs(toolDefsOf(s)), ...mcpSpecsAt(s.mcpServers ?? [], 0)],
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
  /** The run's trace hash (and trace file): a chain across restarts in a run that can crash. */
  readonly hasher: TraceHasher | TraceChain;
  /** The invariant monitors and the RESPONSE monitor (response/), in front of the recorder. */
  private monitors: SimMonitors;
  readonly triggers: TriggerEngine;
  /** The simulated process of a run that can crash, else null. */
  readonly process: SimProcess | null;
  /** Violations the monitors found in events a crash then cut from the trace. */
  readonly lostViolations: Violation[] = [];
  /** While true the recorder records nothing: the monitors are being shown events already recorded. */
  private muted = false;
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
    const crashes = canCrash(scenario, this.swarm);
    const header = { scenario: scenario.name, seed: this.seed, reportVersion: 1 };
    const file = opts.tracePath === undefined ? null : { path: opts.tracePath, header };
    this.hasher = crashes ? new TraceChain(file) : new TraceHasher(file ?? {});
    // The agenda is built last (it needs the Runtime); the triggers reach it only once the run starts.
    this.triggers = new TriggerEngine(
      scenario.inputs,
      this.clock,
      (input) => this.agenda.injectInput(input),
      (input) => this.agenda.markSubmitted(input.id),
    );
    const record: TraceSink = {
      emit: (e) => {
        if (this.muted) return;
        this.events.push(e);
        this.hasher.emit(e);
        this.triggers.observe(e);
      },
    };
    const newMonitors = (): SimMonitors =>
      new SimMonitors(
        record,
        new CheckedMonitor({ builtinPlugins: scenario.builtinPlugins, cooldownMs: this.config.cooldownMs }),
        ResponseMonitor.forRun(scenario, this.config, this.swarm === null ? null : this.swarm.active),
      );
    this.monitors = newMonitors();
    // The kernel traces into this front, which stays while a crash replaces the monitors behind it.
    const front: TraceSink = {
      emit: (e) => this.monitors.emit(e),
      attach: (stamp) => this.monitors.attach(stamp),
    };
    // The root's main graph memory: an empty SQLite file of this run, deleted when the run ends.
    // Nothing reads these files after the run, so SQLite never syncs them.
    this.mainMemory = new LazyGraphStore(() => this.mainPath(), { synchronous: 'off' });
    // Each resident's temp store lives beside main, under residents/<id>/, and goes with its child; a
    // kernel restored from a snapshot (a snapshot cut) is given back the stores its children had. Main
    // is created only when a child's store is first opened: most residents never touch memory.
    const childStores = new Map<string, ChildMemory>();
    const childDirs = (): ChildMemoryDir => {
      const mainPath = this.mainPath();
      return new ChildMemoryDir(
        this.memoryDir as string,
        () => {
          this.mainMemory.ensureOpen();
          return mainPath;
        },
        { tempSynchronous: 'off', mainAt: 'first-use' },
      );
    };
    const childMemory: ChildMemoryFactory = {
      create: (child) => {
        const store = childDirs().create(child);
        childStores.set(child, store);
        return store;
      },
      reopen: (child) => {
        const store = childStores.get(child);
        if (store === undefined) throw new MemoryError(`no light memory was made for child ${child} in this run`);
        return store;
      },
    };
    let ports: KernelPorts = { memory: memoryPorts(this.mainMemory), childMemory };
    let process: SimProcess | null = null;
    if (crashes) {
      const stores = {
        create: (child: string) => childMemory.create(child),
        reopen: (child: string) => (childMemory.reopen as (child: string) => ChildMemory)(child),
      };
      const memory = new CrashMemory(this.mainMemory, stores, (call) => process?.recordMemory(call));
      ports = { memory: memoryPorts(memory.main), childMemory: memory.children };
      const world = this;
      const kernelPorts = ports;
      process = new SimProcess(scenario.journal, {
        events: this.events,
        get runtime() {
          return world.runtime;
        },
        get door() {
          return world.door;
        },
        memory,
        ports: kernelPorts,
        sink: front,
        cutTrace: (kept, crashAtMs) => {
          this.cutTrace(kept, crashAtMs, newMonitors);
        },
        dropStrayStores: (kernel) => {
          const alive = new Set(kernel.dump().agents.map((a) => a.id));
          for (const [child, store] of childStores) {
            if (alive.has(child)) continue;
            store.discard();
            childStores.delete(child);
          }
        },
      });
    }
    this.process = process;
    const kernelPorts = ports;
    this.door = new SimKernelDoor(
      new Kernel(this.config, front, ports),
      opts.snapshotCut ?? null,
      () => this.events.length,
      (snapshot) => Kernel.restore(snapshot, front, kernelPorts),
      process,
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
    const fakeTools = new FakeToolRunner({
      clock: this.clock,
      seed: this.seed,
      tools: toolDefsOf(scenario),
      faults: scenario.faults,
      swarm: this.swarm,
    });
    const mcp = this.mcpServers(scenario, process);
    const tools: ToolRunner =
      mcp === null
        ? fakeTools
        : { run: (call, ctx) => (mcp.owns(call.name) ? mcp.run(call, ctx) : fakeTools.run(call, ctx)) };
    this.runtime = new Runtime(
      this.door,
      { clock: this.clock, provider: this.provider, tools, cancellation: () => new CancelToken() },
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
      process,
    });
  }

  /**
   * The scenario's MCP-shaped servers (fakes/mcp.ts), or null without any. When what they offer changes,
   * the kernel is offered the new list through its door, as serve does (tools/offered-tools.ts); while
   * the simulated process is down, just after it is back.
   */
  private mcpServers(scenario: Scenario, process: SimProcess | null): SimMcpServers | null {
    const defs = scenario.mcpServers ?? [];
    if (defs.length === 0) return null;
    const fakeSpecs = toolSpecs(toolDefsOf(scenario));
    const offered = new OfferedTools({
      listed: () => [...fakeSpecs, ...mcp.specs()],
      offered: () => this.door.kernel.tools(),
      feed: (list) => this.runtime.feed({ type: 'tools.set', tools: list }),
    });
    const sync = (): void => {
      const restartAtMs = process?.isDown === true ? process.restartAtMs : null;
      if (restartAtMs === null) offered.sync();
      else this.clock.setTimer(Math.max(1, restartAtMs - this.clock.now() + 1), sync);
    };
    const mcp = new SimMcpServers({
      clock: this.clock,
      seed: this.seed,
      servers: defs,
      swarm: this.swarm,
      onChange: sync,
    });
    mcp.start();
    return mcp;
  }

  /** The monitors the kernel traces into now. */
  get monitor(): SimMonitors {
    return this.monitors;
  }

  /**
   * A crash cut the run's trace back to its first `kept` events: fresh monitors are shown them (muted:
   * they are recorded already) and take over; what the old ones found in the cut events is kept aside.
   */
  private cutTrace(kept: number, crashAtMs: number, newMonitors: () => SimMonitors): void {
    const old = this.monitors;
    this.events.length = kept;
    const submitted = new Set<string>();
    // A stop without text creates no task: its `stop` event says it was submitted.
    for (const event of this.events)
      if (event.type === 'task.submitted' || event.type === 'stop') submitted.add(event.task);
    this.agenda.crashKept(submitted);
    const fresh = newMonitors();
    this.muted = true;
    try {
      for (const event of this.events) fresh.emit(event);
    } finally {
      this.muted = false;
    }
    const known = new Set(fresh.violations.map(violationKey));
    for (const v of old.violations) {
      if (known.has(violationKey(v))) continue;
      // Its event is gone from the trace (seq 0 points at none); the report still lists it.
      this.lostViolations.push({
        ...v,
        seq: 0,
        message: `in events lost with the crash at t=${crashAtMs}ms: ${v.message}`,
      });
    }
    this.monitors = fresh;
    if (this.hasher instanceof TraceChain) this.hasher.restart(this.events);
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
      if (this.hasher instanceof TraceChain) this.hasher.close(this.events);
      else this.hasher.close();
    } finally {
      this.mainMemory.close();
      if (this.memoryDir !== null) rmSync(this.memoryDir, { recursive: true, force: true });
    }
  }
}

/** A run can crash when its scenario has a `crash` event or its swarm the `crash` site. */
export function canCrash(s: Scenario, swarm: Swarm | null): boolean {
  return s.events.some((e) => e.crash !== undefined) || (swarm?.active.includes('crash') ?? false);
}

function violationKey(v: Violation): string {
  return `${v.invariant}\u0000${v.seq}\u0000${v.agent}\u0000${v.task ?? ''}\u0000${v.message}`;
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
