/**
 * The graph memory of a replay: it answers each call with the result the production store gave, read
 * from the journal, and never opens a database (docs/spec.md §13). Production writes a call's line right after
 * the input whose reaction made it, so before each input is fed the replay hands this store the calls
 * recorded after it; the kernel, replaying the same inputs, makes the same calls in the same order.
 *
 * A call that does not match the next recorded one (another operation, other arguments) means the
 * replay has left the production run: it is recorded as a divergence and answered with a MemoryError,
 * which the kernel treats as a failing store, so the replay goes on and its hash tells the rest.
 */
import {
  MemoryError,
  type CommitResult,
  type ExportedTriple,
  type GraphMemory,
  type Recall,
  type Triple,
} from '../kernel/index.ts';
import type { JournalMemory, MemoryCall } from './format.ts';

export class ReplayMemory implements GraphMemory {
  private expected: JournalMemory[] = [];
  private readonly divergences: string[] = [];
  private calls = 0;

  constructor(private readonly store: string) {}

  /** The calls recorded after the input about to be fed; whatever the last input left unused diverged. */
  expect(calls: readonly JournalMemory[], where: string): void {
    this.leftOver(where);
    this.expected = calls.filter((c) => c.store === this.store);
  }

  /** Recorded calls the replay never made count as a divergence. */
  leftOver(where: string): void {
    for (const call of this.expected)
      this.divergences.push(`${where}: the journal has a memory ${call.call} the replay did not make`);
    this.expected = [];
  }

  get divergenceList(): readonly string[] {
    return this.divergences;
  }

  get callCount(): number {
    return this.calls;
  }

  recall(keywords: readonly string[], depth: number): Recall {
    const recorded = this.answer({ call: 'recall', args: { keywords, depth } });
    if (recorded.call !== 'recall' || recorded.result === undefined) throw this.mismatch('recall');
    return recorded.result;
  }

  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    const recorded = this.answer({ call: 'commit', args: { triples, session, turn, nowMs } });
    if (recorded.call !== 'commit' || recorded.result === undefined) throw this.mismatch('commit');
    return recorded.result;
  }

  exportTriples(limit: number): ExportedTriple[] {
    const recorded = this.answer({ call: 'export', args: { limit } });
    if (recorded.call !== 'export' || recorded.result === undefined) throw this.mismatch('export');
    return [...recorded.result];
  }

  /** A child's store was made in production (its recorded refusal is thrown again). */
  created(): void {
    this.answer({ call: 'create', args: {} });
  }

  promote(keep: readonly number[] | undefined, child: string, nowMs: number): CommitResult {
    const recorded = this.answer({
      call: 'promote',
      args: { keep: keep === undefined ? null : [...keep], child, nowMs },
    });
    if (recorded.call !== 'promote' || recorded.result === undefined) throw this.mismatch('promote');
    return recorded.result;
  }

  discard(): void {
    this.answer({ call: 'discard', args: {} });
  }

  /** The next recorded call, when it is this one; its recorded error is thrown again. */
  private answer(call: MemoryCall): JournalMemory {
    this.calls += 1;
    const next = this.expected.shift();
    if (next === undefined) throw this.diverge(`memory ${call.call} #${this.calls} is not in the journal`);
    if (next.call !== call.call || sortedJson(next.args) !== sortedJson(call.args)) {
      throw this.diverge(
        `memory ${call.call} #${this.calls} differs from the journal's ${next.call} ${JSON.stringify(next.args)}`,
      );
    }
    if (next.error !== undefined) {
      if (next.error.name === 'MemoryError') throw new MemoryError(next.error.message);
      throw Object.assign(new Error(next.error.message), { name: next.error.name });
    }
    return next;
  }

  private mismatch(call: string): MemoryError {
    return this.diverge(`memory ${call} #${this.calls}: the journal has no result for it`);
  }

  private diverge(message: string): MemoryError {
    this.divergences.push(message);
    return new MemoryError(`replay diverged from the journal: ${message}`);
  }
}

/** JSON with object keys sorted: arguments compare by content, whatever order their keys were built in. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const record = v as Readonly<Record<string, unknown>>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    );
  });
}
