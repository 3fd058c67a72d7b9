/**
 * The children's light memories of `serve`, journaled (docs/spec.md §13): every creation, call and discard
 * of a child's store is written under the store name `child/<id>`, so a replay answers them from the
 * journal (the replay's ReplayStores) without opening a database — the same contract as the
 * main store's RecordingMemory, one store per child.
 */
import type { ChildMemory, ChildMemoryFactory, CommitResult, GraphMemory } from '../kernel/index.ts';
import { childStore } from './format.ts';
import { recordCall, type MemoryRecorder } from './recording-memory.ts';

export class RecordingChildMemoryFactory implements ChildMemoryFactory {
  constructor(
    private readonly inner: ChildMemoryFactory,
    private readonly record: MemoryRecorder,
  ) {}

  create(child: string): ChildMemory {
    const store = childStore(child);
    const rec = <T>(call: Parameters<typeof recordCall>[2], run: () => T): T =>
      recordCall(this.record, store, call, run);
    const memory = recordCall(
      this.record,
      store,
      { call: 'create', args: {} },
      () => this.inner.create(child),
      () => null,
    );
    return {
      recall: (keywords, depth) =>
        rec({ call: 'recall', args: { keywords, depth } }, () => memory.recall(keywords, depth)),
      commit: (triples, session, turn, nowMs) =>
        rec({ call: 'commit', args: { triples, session, turn, nowMs } }, () =>
          memory.commit(triples, session, turn, nowMs),
        ),
      exportTriples: (limit) => rec({ call: 'export', args: { limit } }, () => memory.exportTriples(limit)),
      promote: (main: GraphMemory, keep, id, nowMs): CommitResult =>
        rec({ call: 'promote', args: { keep: keep === undefined ? null : [...keep], child: id, nowMs } }, () =>
          memory.promote(main, keep, id, nowMs),
        ),
      discard: () => rec({ call: 'discard', args: {} }, () => memory.discard()),
    };
  }
}
