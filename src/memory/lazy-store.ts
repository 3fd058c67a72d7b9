/**
 * A main graph memory created on first use. The simulator gives every run an empty main store in a
 * temporary SQLite file (docs/spec.md §12.2.1); most runs never touch it, and creating the file, the schema and
 * the full-text index costs more than a whole small scenario. Opening it at the first recall, commit
 * or export changes nothing observable: an empty store and an absent one answer alike.
 */
import type { CommitResult, ExportedTriple, GraphMemory, Recall, Triple } from '../kernel/index.ts';
import { SqliteGraphStore, type OpenOptions } from './sqlite-store.ts';

export class LazyGraphStore implements GraphMemory {
  private store: SqliteGraphStore | null = null;

  /** `makePath` runs once, at the first use: it may create the directory the file lives in. */
  constructor(
    private readonly makePath: () => string,
    private readonly options: OpenOptions = {},
  ) {}

  /** Whether the file was ever created. */
  get opened(): boolean {
    return this.store !== null;
  }

  recall(keywords: readonly string[], depth: number): Recall {
    return this.open().recall(keywords, depth);
  }

  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    return this.open().commit(triples, session, turn, nowMs);
  }

  exportTriples(limit: number): ExportedTriple[] {
    return this.open().exportTriples(limit);
  }

  close(): void {
    this.store?.close();
  }

  /** Opens (and so creates) the store now: a child's light memory opens the main file read-only. */
  ensureOpen(): void {
    this.open();
  }

  private open(): SqliteGraphStore {
    this.store ??= SqliteGraphStore.openMain(this.makePath(), this.options);
    return this.store;
  }
}
