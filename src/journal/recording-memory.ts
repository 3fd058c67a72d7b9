/**
 * A GraphMemory proxy that writes every call and its outcome to the journal (docs/spec.md §13), so that a
 * replay answers the same calls with the same results without opening a database. It sits at the
 * composition root, between the kernel and the SQLite store; the kernel cannot tell it is there.
 *
 * A call that throws is recorded with its error and rethrown unchanged: the replay throws it again,
 * and the kernel reacts to it the same way (a MemoryError is a tool error; anything else a bug).
 */
import type { CommitResult, ExportedTriple, GraphMemory, Recall, Triple } from '../kernel/index.ts';
import type { JournalMemory, MemoryCall } from './format.ts';

export type MemoryRecorder = (line: JournalMemory) => void;

export class RecordingMemory implements GraphMemory {
  constructor(
    private readonly store: GraphMemory,
    private readonly name: string,
    private readonly record: MemoryRecorder,
  ) {}

  recall(keywords: readonly string[], depth: number): Recall {
    return this.recorded({ call: 'recall', args: { keywords, depth } }, () => this.store.recall(keywords, depth));
  }

  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    return this.recorded({ call: 'commit', args: { triples, session, turn, nowMs } }, () =>
      this.store.commit(triples, session, turn, nowMs),
    );
  }

  exportTriples(limit: number): ExportedTriple[] {
    return this.recorded({ call: 'export', args: { limit } }, () => this.store.exportTriples(limit));
  }

  private recorded<T>(call: Omit<MemoryCall, 'result'>, run: () => T): T {
    return recordCall(this.record, this.name, call, run);
  }
}

/**
 * Runs one memory call and writes it to the journal with its result (as `journaled` shows it: a
 * handle is recorded as null), or with its error, which is rethrown.
 */
export function recordCall<T>(
  record: MemoryRecorder,
  store: string,
  call: Omit<MemoryCall, 'result'>,
  run: () => T,
  journaled: (result: T) => unknown = (result) => (result === undefined ? null : result),
): T {
  let result: T;
  try {
    result = run();
  } catch (err) {
    const error =
      err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
    record({ type: 'memory', store, ...call, error } as JournalMemory);
    throw err;
  }
  record({ type: 'memory', store, ...call, result: journaled(result) } as JournalMemory);
  return result;
}
