/**
 * The graph memory port (docs/spec.md §9) and the pure data that crosses it. Unlike the model and tool
 * ports, the kernel holds this one itself: built-in memory tools and consolidation run inside a
 * kernel reaction, and a synchronous store keeps them there. The SQLite store
 * (src/memory/sqlite-store.ts) and the children's light memory (src/memory/light-memory.ts)
 * implement it; timestamps are the `nowMs` the kernel passes in.
 *
 * The port is synchronous because better-sqlite3 is: a commit is one SQLite transaction that never
 * awaits, so it cannot interleave with another commit in the same process.
 */

/** One fact: `subject —relation→ object`, optionally with the sentence it was read from. */
export interface Triple {
  readonly subject: string;
  readonly relation: string;
  readonly object: string;
  readonly sentence?: string;
}

export interface RecallEntity {
  readonly name: string;
  readonly type: string;
  readonly mentions: number;
}

export interface RecallRelation {
  readonly source: string;
  readonly relation: string;
  readonly target: string;
  readonly confidence: number;
}

/** What a recall returns: always de-duplicated and sorted (see `mergeRecall` in rules.ts). */
export interface Recall {
  readonly entities: readonly RecallEntity[];
  readonly relations: readonly RecallRelation[];
}

/**
 * `added`: relations newly stored by this commit. `skipped`: triples that stored nothing, i.e.
 * invalid ones (rules.ts `validTriple`) plus ones already present for the same session, so
 * `added + skipped` = the number of triples given and re-committing a batch gives `added: 0`.
 */
export interface CommitResult {
  readonly added: number;
  readonly skipped: number;
}

export interface ExportedTriple extends Triple {
  readonly confidence: number;
}

/** Synchronous (better-sqlite3 is synchronous); timestamps come from nowMs. */
export interface GraphMemory {
  /**
   * Entities whose lower-cased name contains any lower-cased keyword, the active relations touching
   * them and, hop by hop, their neighbours up to `depth` hops (clamped to 1..3).
   */
  recall(keywords: readonly string[], depth: number): Recall;
  /** One transaction: either every valid triple is stored or, on an error, none is. */
  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult;
  /** Active relations in insertion order; `limit` ≤ 0 means all. */
  exportTriples(limit: number): ExportedTriple[];
}

/**
 * An expected memory failure (a write through a read-only handle, a missing main file, a locked
 * database, a closed or discarded store). The message names the file and says what to do; `cause`
 * keeps the underlying SQLite error when there is one.
 */
export class MemoryError extends Error {
  override readonly name = 'MemoryError';
}

/** A boundary parser's answer: the value, or an error naming the field and the fix. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** The boundary parsers for model-written memory data (implemented with zod in src/memory). */
export interface MemoryParsers {
  consolidationAnswer(text: string): Parsed<readonly Triple[]>;
  memoryWriteArgs(args: string): Parsed<{ readonly triples: readonly Triple[] }>;
  memoryRecallArgs(args: string): Parsed<{ readonly keywords: readonly string[]; readonly depth: number }>;
}

/** An agent's graph memory and the parsers for what models write into it. */
export interface MemoryPorts {
  readonly store: GraphMemory;
  readonly parsers: MemoryParsers;
}

/**
 * A child's light memory (docs/spec.md §9): commits go to its own temp store, recall reads temp ∪ main, and
 * the parent may promote selected exported triples into main (reclaim). It ends with the child.
 */
export interface ChildMemory extends GraphMemory {
  /** Commits the exported triples at `keep` (indexes; absent = all) into `main` under `reclaim/<child>`. */
  promote(main: GraphMemory, keep: readonly number[] | undefined, child: string, nowMs: number): CommitResult;
  /** Closes the stores and deletes the temp files. Idempotent. */
  discard(): void;
}

/**
 * Creates children's light memories, synchronously, when a child is created (docs/spec.md §10.2). A
 * MemoryError (a missing main, an unwritable directory) refuses the creation with its message;
 * nothing is half-created.
 */
export interface ChildMemoryFactory {
  create(child: string): ChildMemory;
  /**
   * The light memory of a child that a restored kernel already had (docs/spec.md §13.2): its store
   * outlived the kernel object, so it is given back, not made anew. Absent: a snapshot with a child
   * that has a light memory cannot be restored.
   */
  reopen?(child: string): ChildMemory;
}
