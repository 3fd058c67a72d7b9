/**
 * The simulated journal of a run that can crash (docs/spec.md §13.2 "In the simulator"): every input
 * the kernel's door lets in, with its time, the trace length before its reaction and the memory calls
 * its reaction made; and the latest snapshot of the kernel with the timers it had armed. It lives in
 * the simulator's memory, not on disk: what a crash keeps of it is decided by durability.ts.
 *
 * A snapshot is taken at the door, between two reactions, before the first input once `snapshotEvery`
 * trace events followed the last snapshot, and once right after the set-up at t = 0: a server's
 * configured channels and residents are durable before it takes its first request. Only the latest
 * snapshot is kept; the journal keeps every input after the first one (a simulator run is short).
 */
import { assert, type Kernel, type KernelInput, type KernelSnapshot } from '../../kernel/index.ts';
import type { JournalConfig } from '../scenario/index.ts';
import type { ArmedTimer, ArmedTimers } from './armed-timers.ts';
import { survivingInputs } from './durability.ts';
import type { MemoryRecord } from './memory.ts';

export interface JournalEntry {
  readonly input: KernelInput;
  readonly nowMs: number;
  /** The trace events recorded before its reaction: where its own events begin. */
  readonly eventsBefore: number;
  /** The memory calls its reaction made, in order. */
  readonly memory: MemoryRecord[];
}

export interface SimSnapshot {
  readonly kernel: KernelSnapshot;
  /** Journal entries it covers (those before it). */
  readonly inputs: number;
  /** Trace events recorded when it was taken. */
  readonly events: number;
  readonly timers: readonly ArmedTimer[];
}

/** What survived a crash: the latest snapshot and the durable inputs after it. */
export interface Survivors {
  readonly snapshot: SimSnapshot;
  readonly inputs: readonly JournalEntry[];
  /** Trace events of the durable history (those of the snapshot's and the durable inputs' reactions). */
  readonly events: number;
  /** The inputs that were not durable, now gone from the journal. */
  readonly lost: readonly JournalEntry[];
}

export class SimJournal {
  private readonly entries: JournalEntry[] = [];
  private latest: SimSnapshot | null = null;

  constructor(readonly config: JournalConfig) {}

  /** The first snapshot, right after the set-up at t = 0; the kernel is between two reactions. */
  start(kernel: Kernel, events: number, timers: ArmedTimers): void {
    this.take(kernel, events, timers);
  }

  /** Takes a snapshot when one is due (after `start`); the kernel is between two reactions. */
  snapshotIfDue(kernel: Kernel, events: number, timers: ArmedTimers): void {
    const latest = this.latest;
    if (latest !== null && events - latest.events >= this.config.snapshotEvery) this.take(kernel, events, timers);
  }

  private take(kernel: Kernel, events: number, timers: ArmedTimers): void {
    this.latest = { kernel: kernel.snapshot(), inputs: this.entries.length, events, timers: timers.list() };
  }

  append(input: KernelInput, nowMs: number, eventsBefore: number): void {
    this.entries.push({ input, nowMs, eventsBefore, memory: [] });
  }

  /** A memory call of the reaction under way (that of the last input appended). */
  recordMemory(call: MemoryRecord): void {
    this.entries[this.entries.length - 1]?.memory.push(call);
  }

  /**
   * The process died at `crashAtMs` with `events` trace events recorded: what its journal kept. The
   * inputs that were not durable are dropped from it, so the journal goes on from what survived.
   */
  crash(crashAtMs: number, events: number): Survivors {
    const snapshot = this.latest;
    assert(snapshot !== null, 'SIM: a crash before the journal took its first snapshot (the set-up at t = 0)');
    const times = this.entries.map((e) => e.nowMs);
    const kept = survivingInputs(times, snapshot.inputs, crashAtMs, this.config);
    const lost = this.entries.splice(kept);
    return {
      snapshot,
      inputs: this.entries.slice(snapshot.inputs),
      events: lost[0]?.eventsBefore ?? events,
      lost,
    };
  }
}
