/**
 * The memories of a recovering server (docs/spec.md §13.2). While the journal is replayed, every memory
 * call is answered from the journal (the calls already happened: the database holds their effects); once
 * the server goes live, the same kernel-facing objects answer from the real stores. The kernel was made
 * once, with these objects, and never learns of the switch.
 */
import type {
  ChildMemory,
  ChildMemoryFactory,
  CommitResult,
  ExportedTriple,
  GraphMemory,
  Recall,
  Triple,
} from '../kernel/index.ts';

/** The root's main memory: the journal's answers while recovering, then the live store. */
export class SwitchingMemory implements GraphMemory {
  constructor(private target: GraphMemory) {}

  goLive(live: GraphMemory): void {
    this.target = live;
  }

  recall(keywords: readonly string[], depth: number): Recall {
    return this.target.recall(keywords, depth);
  }

  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    return this.target.commit(triples, session, turn, nowMs);
  }

  exportTriples(limit: number): ExportedTriple[] {
    return this.target.exportTriples(limit);
  }
}

/**
 * The children's light memories. A child created while recovering gets the journal's store for it; at
 * `goLive` each such child still alive is handed its store on disk (`reopen`), which outlived the
 * crashed process. Children created afterwards get live stores from the start.
 */
export class SwitchingChildMemories implements ChildMemoryFactory {
  private recovering: ChildMemoryFactory | null;
  private live: ChildMemoryFactory | null = null;
  private readonly held = new Map<string, { target: ChildMemory }>();

  constructor(recovering: ChildMemoryFactory) {
    this.recovering = recovering;
  }

  /** From now on: `live` for new children; `reopen` gives each child made while recovering its store. */
  goLive(live: ChildMemoryFactory, reopen: (child: string) => ChildMemory): void {
    this.recovering = null;
    this.live = live;
    for (const [child, holder] of this.held) holder.target = reopen(child);
    this.held.clear();
  }

  create(child: string): ChildMemory {
    if (this.recovering === null) return (this.live as ChildMemoryFactory).create(child);
    return this.hold(child, this.recovering.create(child));
  }

  /** A child restored from a snapshot: the journal's store while recovering, its store on disk after. */
  reopen(child: string): ChildMemory {
    const recovering = this.recovering;
    if (recovering === null) throw new Error(`SwitchingChildMemories: ${child} reopened after going live`);
    const reopen = recovering.reopen?.bind(recovering);
    if (reopen === undefined) throw new Error('SwitchingChildMemories: the recovering factory cannot reopen');
    return this.hold(child, reopen(child));
  }

  private hold(child: string, target: ChildMemory): ChildMemory {
    const holder = { target };
    this.held.set(child, holder);
    return {
      recall: (keywords, depth) => holder.target.recall(keywords, depth),
      commit: (triples, session, turn, nowMs) => holder.target.commit(triples, session, turn, nowMs),
      exportTriples: (limit) => holder.target.exportTriples(limit),
      promote: (main, keep, id, nowMs) => holder.target.promote(main, keep, id, nowMs),
      discard: () => {
        // A child that ended during the replay has no store to take back.
        if (this.held.get(child) === holder) this.held.delete(child);
        holder.target.discard();
      },
    };
  }
}
