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
    const memory = recordCall(
      this.record,
      childStore(child),
      { call: 'create', args: {} },
      () => this.inner.create(child),
      () => null,
    );
    return recordingChildMemory(memory, child, this.record);
  }
}

/**
 * A child's light memory whose every call is journaled under the child's store name: one made by the
 * factory above, or one a recovered server took back from disk (its creation is in an earlier run).
 */
export function recordingChildMemory(memory: ChildMemory, child: string, record: MemoryRecorder): ChildMemory {
  const store = childStore(child);
  const rec = <T>(call: Parameters<typeof recordCall>[2], run: () => T): T => recordCall(record, store, call, run);
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
