/**
 * The simulated process of a run that can crash (docs/spec.md §12.2 `events[].crash`, §13.2 "In the
 * simulator"). Theory of operation:
 *
 * While up, the process journals every input at the kernel's door (journal.ts) with the timers the
 * kernel arms (armed-timers.ts) and the memory calls it makes (memory.ts), snapshotting the kernel every
 * `journal.snapshotEvery` trace events. `crash` is the process dying at an instant, before anything
 * else happens then: the Runtime abandons every call in flight and every timer, the door closes, the
 * journal keeps what was durable under `journal.sync` (durability.ts), and the run's trace is cut back
 * to the events of that durable history — the lost inputs' reactions never happened, as far as anything
 * after the restart can tell. While down, every input due is refused and its submission reported
 * `lost`; so is every submission whose input the crash lost (it was never acknowledged).
 *
 * `restart` comes at `at + restartAfterMs`, before anything else at that instant: the kernel is rebuilt
 * from the snapshot and the durable inputs (recovery.ts), the light memories of children it does not
 * have are discarded (their creation was lost), the door opens on it with its armed timers — those that
 * fell due while down fire at this instant, in their order — and the `restart` input is fed: calls that
 * were in flight are re-sent (model) or end failed (tool).
 */
import {
  assert,
  type Command,
  type Kernel,
  type KernelInput,
  type KernelPorts,
  type TraceEvent,
  type TraceSink,
} from '../../kernel/index.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import type { DoorTap, SimKernelDoor } from '../kernel-door.ts';
import type { JournalConfig } from '../scenario/index.ts';
import { ArmedTimers } from './armed-timers.ts';
import { SimJournal, type Survivors } from './journal.ts';
import type { CrashMemory, MemoryRecord } from './memory.ts';
import { recoverKernel } from './recovery.ts';

/** What the process acts on: the parts of its world, read at each use. */
export interface ProcessHost {
  readonly events: TraceEvent[];
  readonly runtime: Runtime;
  readonly door: SimKernelDoor;
  readonly memory: CrashMemory;
  readonly ports: KernelPorts;
  /** The sink a recovered kernel traces into: the run's monitors. */
  readonly sink: TraceSink;
  /** Cuts the run's trace back to its first `kept` events; the monitors and the hash chain follow. */
  cutTrace(kept: number, crashAtMs: number): void;
  /** Discards the light memories of children `kernel` does not have. */
  dropStrayStores(kernel: Kernel): void;
}

/** A submission that was never acknowledged: refused while the process was down, or lost with its journal record. */
export interface LostSubmission {
  readonly id: string;
  /** When it was submitted. */
  readonly t: number;
  readonly reason: 'down' | 'unsynced';
}

/** One crash and its restart, for the report. */
export interface CrashRecord {
  readonly at: number;
  readonly restartAt: number;
  /** Journaled inputs the crash kept (the snapshot's included) and lost. */
  readonly inputsKept: number;
  readonly inputsLost: number;
  /** Trace events the crash kept (the durable history the restart went on from) and cut. */
  readonly eventsKept: number;
  readonly eventsLost: number;
}

interface Down {
  readonly atMs: number;
  readonly restartAtMs: number;
  readonly survivors: Survivors;
}

export class SimProcess implements DoorTap {
  private readonly journal: SimJournal;
  private timers = new ArmedTimers();
  private down: Down | null = null;
  private readonly lostIds = new Set<string>();
  readonly lost: LostSubmission[] = [];
  readonly crashes: CrashRecord[] = [];

  constructor(
    config: JournalConfig,
    private readonly host: ProcessHost,
  ) {
    this.journal = new SimJournal(config);
  }

  /** Told of every live memory call (CrashMemory's recorder). */
  readonly recordMemory = (call: MemoryRecord): void => this.journal.recordMemory(call);

  /** The set-up at t = 0 is done: the journal's first snapshot. */
  started(): void {
    this.journal.start(this.host.door.kernel, this.host.events.length, this.timers);
  }

  entering(input: KernelInput, nowMs: number, kernel: Kernel): void {
    this.journal.snapshotIfDue(kernel, this.host.events.length, this.timers);
    if (input.type === 'timer.fired') this.timers.fired(input.id);
    this.journal.append(input, nowMs, this.host.events.length);
  }

  left(commands: readonly Command[]): void {
    this.timers.observe(commands);
  }

  get isDown(): boolean {
    return this.down !== null;
  }

  /** When the process restarts, while it is down. */
  get restartAtMs(): number | null {
    return this.down?.restartAtMs ?? null;
  }

  /** Whether submission `id` was lost (never acknowledged). */
  isLost(id: string): boolean {
    return this.lostIds.has(id);
  }

  /** A submission arrived while the process was down: refused, never acknowledged. */
  refused(id: string, nowMs: number): void {
    this.loseSubmission(id, nowMs, 'down');
  }

  /** An `afterTerminal` input whose task `cause` was lost: lost with it, at its time and for its reason. */
  lostWith(id: string, cause: string): void {
    const of = this.lost.find((l) => l.id === cause);
    if (of !== undefined) this.loseSubmission(id, of.t, of.reason);
  }

  /** The process dies now, before anything else at this instant. */
  crash(nowMs: number, restartAfterMs: number): void {
    assert(this.down === null, 'SIM: a crash while the simulated process is down');
    const { runtime, door, events } = this.host;
    runtime.abandon();
    door.close();
    const before = events.length;
    const survivors = this.journal.crash(nowMs, before);
    for (const entry of survivors.lost)
      if (entry.input.type === 'submit') this.loseSubmission(entry.input.submission.id, entry.nowMs, 'unsynced');
    this.host.cutTrace(survivors.events, nowMs);
    this.crashes.push({
      at: nowMs,
      restartAt: nowMs + restartAfterMs,
      inputsKept: survivors.snapshot.inputs + survivors.inputs.length,
      inputsLost: survivors.lost.length,
      eventsKept: survivors.events,
      eventsLost: before - survivors.events,
    });
    this.down = { atMs: nowMs, restartAtMs: nowMs + restartAfterMs, survivors };
  }

  /** The process starts again from its journal, before anything else at this instant. */
  restart(): void {
    const down = this.down;
    assert(down !== null, 'SIM: a restart while the simulated process is up');
    const { events, memory, ports, sink, door, runtime } = this.host;
    const traceSeq = events[events.length - 1]?.seq ?? down.survivors.snapshot.kernel.traceSeq;
    const { kernel, timers } = recoverKernel(down.survivors, memory, ports, sink, traceSeq);
    this.timers = timers;
    this.host.dropStrayStores(kernel);
    this.down = null;
    door.reopen(
      kernel,
      timers.list().map((t): Command => ({ type: 'timer.set', id: t.id, atMs: t.atMs })),
    );
    runtime.feed({ type: 'restart' });
  }

  private loseSubmission(id: string, t: number, reason: LostSubmission['reason']): void {
    if (this.lostIds.has(id)) return;
    this.lostIds.add(id);
    this.lost.push({ id, t, reason });
  }
}
