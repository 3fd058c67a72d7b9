/**
 * A child's seat in the tree: what an agent holds only because it is a child — its kind, its
 * processing table, its context-full latch and signal count, its light memory, and the parent it
 * answers to. The agent asks its seat at the few points where a child behaves differently (after
 * Prepare, when a round ends, when a compress finishes); the root has no seat.
 */
import type { ChildMemory } from '../ports/graph-memory.ts';
import { ContextFullLatch, stateAfterCompress, type LatchDecision } from './context-full.ts';
import type { ChildKind } from './kind.ts';
import { ProcessingTable } from './processing-table.ts';
import type { ChildSpec } from './spec.ts';
import type { SeatSnapshot } from '../snapshot/agent.ts';

export class ChildSeat {
  readonly table = new ProcessingTable();
  private readonly latch = new ContextFullLatch();
  private signals = 0;
  /** Older events a failed compress dropped (docs/spec.md §10.5), as `inspect` shows them. */
  droppedByCompress = 0;

  constructor(
    readonly kind: ChildKind,
    readonly spec: ChildSpec,
    readonly parent: string,
    readonly windowTokens: number,
    /** The child's light memory (temp store + read-only main), or null when the kernel has none. */
    readonly memory: ChildMemory | null,
    readonly createdAtMs: number,
    /** Spawned by the kernel as an offload helper (docs/spec.md §10.7): the kernel knows its helpers by this, never by their id. */
    readonly offloadOwned: boolean = false,
  ) {}

  /** After a Prepare step: 'signal' exactly when the parent must get its one L4 (docs/spec.md §10.5). */
  afterPrepare(accumulatedTokens: number): LatchDecision {
    const decision = this.latch.afterPrepare(accumulatedTokens, this.windowTokens);
    if (decision === 'signal') this.signals += 1;
    return decision;
  }

  /**
   * After a compress (docs/spec.md §10.5): the state the child is in now. A context still at or above
   * 0.9 × window re-arms the latch at once, so the next Prepare signals the parent again.
   */
  afterCompress(accumulatedTokens: number): 'running' | 'contextfull' {
    const state = stateAfterCompress(accumulatedTokens, this.windowTokens);
    if (state === 'contextfull') this.latch.rearm();
    return state;
  }

  /** The seat as plain data (docs/spec.md §13.2); the memory is named only by whether there is one. */
  snapshotState(): SeatSnapshot {
    const { records, notes } = this.table.snapshotState();
    return {
      kind: this.kind.name,
      spec: this.spec,
      parent: this.parent,
      windowTokens: this.windowTokens,
      createdAtMs: this.createdAtMs,
      offloadOwned: this.offloadOwned,
      hasMemory: this.memory !== null,
      records,
      notes,
      latchArmed: this.latch.isArmed,
      contextfullSignals: this.signals,
      droppedByCompress: this.droppedByCompress,
    };
  }

  /** Takes over what a snapshot's seat had learnt; what it was made with is the constructor's. */
  restoreState(s: SeatSnapshot): void {
    this.table.restoreState(s);
    this.latch.restore(s.latchArmed);
    this.signals = s.contextfullSignals;
    this.droppedByCompress = s.droppedByCompress;
  }

  get contextfullSignals(): number {
    return this.signals;
  }

  get latchArmed(): boolean {
    return this.latch.isArmed;
  }
}
