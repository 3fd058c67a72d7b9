/**
 * A child's graph memory (docs/spec.md §9 "Light memory"): its own temp store
 * (read-write, full schema, one file per child) beside a read-only handle on the parent's main.
 *
 * Theory of operation.
 *   - commit goes to the temp store only; the main handle is query-only at the SQLite layer, so a
 *     child's write cannot reach main even by mistake (S13);
 *   - recall asks temp, then main, and merges them with `mergeRecall` (S14); a side that fails with
 *     a MemoryError is skipped, both failing is a MemoryError naming both;
 *   - exportTriples reads the temp store: what the child learnt, for the parent to promote;
 *   - each child has its own temp file, so children never see each other's writes (S15);
 *   - `discard()` closes both handles and deletes the temp file with its -wal/-shm companions:
 *     temp memory never outlives the child.
 *
 * Promotion (reclaim, docs/spec.md §10.5) is `promoteTriples`: the parent commits the selected exported
 * triples into a writable main under session `reclaim/<childId>`, turn 0. Because the relation key
 * includes the session, promoting the same triples again adds nothing (M6).
 */
import { rmSync } from 'node:fs';
import {
  type CommitResult,
  EMPTY_RECALL,
  type ExportedTriple,
  type GraphMemory,
  MemoryError,
  mergeRecall,
  type Recall,
  type Triple,
} from '../kernel/index.ts';
import { SqliteGraphStore, type OpenOptions } from './sqlite-store.ts';

/** A GraphMemory that can be closed: what LightMemory needs of its main side. */
export interface ClosableGraphMemory extends GraphMemory {
  close(): void;
}

export interface LightMemoryPaths {
  /** See OpenOptions.busyTimeoutMs. */
  readonly busyTimeoutMs?: number;
  /** The child's own temp file (created if missing). One file per child. */
  readonly tempPath: string;
  /** The parent's main file; it must already exist (it is opened read-only). */
  readonly mainPath: string;
  /** SQLite's `synchronous` for the temp store: 'normal' (the default), or 'off' for a file deleted with its process. */
  readonly tempSynchronous?: 'normal' | 'off';
}

/** Files SQLite keeps beside a database in WAL or rollback mode. */
const COMPANION_SUFFIXES = ['', '-wal', '-shm', '-journal'] as const;

export class LightMemory implements GraphMemory {
  /**
   * Opens main read-only first (a missing main is a MemoryError and leaves no temp file behind),
   * then creates or opens the temp store.
   */
  static open(paths: LightMemoryPaths): LightMemory {
    const busy: OpenOptions = paths.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: paths.busyTimeoutMs };
    const main = SqliteGraphStore.openReadOnly(paths.mainPath, busy);
    try {
      // The temp store dies with the child: durability against a power cut buys nothing here.
      return new LightMemory(
        SqliteGraphStore.openMain(paths.tempPath, { ...busy, synchronous: paths.tempSynchronous ?? 'normal' }),
        main,
      );
    } catch (err) {
      main.close();
      throw err;
    }
  }

  private readonly temp: SqliteGraphStore;
  private readonly main: ClosableGraphMemory;
  private state: 'open' | 'closed' | 'discarded' = 'open';

  /** Takes ownership of both handles: `close()` and `discard()` close them. */
  constructor(temp: SqliteGraphStore, main: ClosableGraphMemory) {
    this.temp = temp;
    this.main = main;
    if (temp.mode !== 'main') {
      throw new MemoryError(
        `light memory temp store ${temp.path} is read-only; open it with SqliteGraphStore.openMain`,
      );
    }
  }

  get tempPath(): string {
    return this.temp.path;
  }

  recall(keywords: readonly string[], depth: number): Recall {
    this.assertOpen();
    const temp = recallSide(this.temp, keywords, depth);
    const main = recallSide(this.main, keywords, depth);
    if (temp instanceof MemoryError && main instanceof MemoryError) {
      throw new MemoryError(`light memory recall failed on both sides; temp: ${temp.message}; main: ${main.message}`, {
        cause: temp,
      });
    }
    return mergeRecall(
      temp instanceof MemoryError ? EMPTY_RECALL : temp,
      main instanceof MemoryError ? EMPTY_RECALL : main,
    );
  }

  /** Writes to the temp store only (S13). */
  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    this.assertOpen();
    return this.temp.commit(triples, session, turn, nowMs);
  }

  /** The temp store's triples: what this child learnt. */
  exportTriples(limit: number): ExportedTriple[] {
    this.assertOpen();
    return this.temp.exportTriples(limit);
  }

  /** Promotes this child's exported triples (`keep` indexes; undefined = all) into `main`. */
  promote(main: GraphMemory, keep: readonly number[] | undefined, childId: string, nowMs: number): CommitResult {
    return promoteTriples(main, this.exportTriples(0), keep, childId, nowMs);
  }

  /** Closes both handles and keeps the temp file. Idempotent. */
  close(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.closeHandles();
  }

  /** Closes both handles and deletes the temp file and its -wal/-shm/-journal. Idempotent. */
  discard(): void {
    if (this.state === 'discarded') return;
    this.state = 'discarded';
    this.closeHandles();
    for (const suffix of COMPANION_SUFFIXES) rmSync(`${this.temp.path}${suffix}`, { force: true });
  }

  private closeHandles(): void {
    try {
      this.temp.close();
    } finally {
      this.main.close();
    }
  }

  private assertOpen(): void {
    if (this.state !== 'open') {
      throw new MemoryError(
        `light memory ${this.temp.path} was ${this.state}; a child's memory ends with the child — ` +
          'open a new LightMemory for a new child',
      );
    }
  }
}

function recallSide(side: GraphMemory, keywords: readonly string[], depth: number): Recall | MemoryError {
  try {
    return side.recall(keywords, depth);
  } catch (err) {
    if (err instanceof MemoryError) return err;
    throw err;
  }
}

/** The session promoted triples are committed under (docs/spec.md §9). */
export function reclaimSession(childId: string): string {
  return `reclaim/${childId}`;
}

/**
 * Commits the selected exported triples into `main` (session `reclaim/<childId>`, turn 0), as one
 * transaction. `keep` holds indexes into `exported` (undefined = all; duplicates count once); an
 * index out of range is a MemoryError before anything is written, because the parent's model chose
 * it and must be told. Re-promoting the same triples adds nothing (M6).
 */
export function promoteTriples(
  main: GraphMemory,
  exported: readonly ExportedTriple[],
  keep: readonly number[] | undefined,
  childId: string,
  nowMs: number,
): CommitResult {
  const indexes = keep === undefined ? exported.map((_, i) => i) : [...new Set(keep)].sort((a, b) => a - b);
  const bad = indexes.filter((i) => !Number.isInteger(i) || i < 0 || i >= exported.length);
  if (bad.length > 0) {
    const range = exported.length === 0 ? 'none exist' : `valid indexes are 0..${exported.length - 1}`;
    throw new MemoryError(
      `cannot promote triples of ${childId}: keep index ${bad.join(', ')} out of range ` +
        `(${exported.length} exported triples, ${range}); nothing was promoted`,
    );
  }
  const selected: Triple[] = indexes.map((i) => {
    const t = exported[i] as ExportedTriple;
    const triple = { subject: t.subject, relation: t.relation, object: t.object };
    return t.sentence === undefined ? triple : { ...triple, sentence: t.sentence };
  });
  return main.commit(selected, reclaimSession(childId), 0, nowMs);
}
