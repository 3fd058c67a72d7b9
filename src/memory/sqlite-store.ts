/**
 * The SQLite graph store (docs/spec.md §9): the real twin of the `GraphMemory` port.
 *
 * Theory of operation. One better-sqlite3 connection per store; every statement is prepared once,
 * in the constructor. A commit is one `db.transaction` (BEGIN IMMEDIATE … COMMIT), so a failure
 * half-way through rolls back every row of the batch and a commit never interleaves with another.
 * Two ways to open a file:
 *   - `openMain(path)`: read-write; creates the file and the schema if missing; WAL journal.
 *   - `openReadOnly(path)`: the same file, opened with SQLite's read-only flag AND
 *     `PRAGMA query_only = 1`; it never creates anything (a missing file is a MemoryError, M2), and
 *     a write through it reaches SQLite, which refuses it (M1).
 *
 * Commit rules. Invalid triples (rules.ts `validTriple`) are skipped and counted. A valid triple
 * upserts its two entities and its sentence, then inserts the relation with
 * `ON CONFLICT(source_id, target_id, relation_type, session_id) DO NOTHING`. Mention counts grow
 * only when the relation is new, so re-committing a batch changes nothing at all (M3): `added` =
 * relations newly stored, `skipped` = invalid + already present (`added + skipped` = batch size).
 *
 * Recall. Keywords are matched as substrings of `name_lower`, the name lower-cased by JavaScript
 * when the entity is created (SQLite's own lower() and LIKE fold ASCII only). A keyword of three
 * or more code points is looked up in a trigram FTS5 index kept by triggers (a table scan took
 * ~1 ms on 25 000 entities, the whole recall budget); a shorter one scans the table. The matched
 * entities seed a breadth-first walk over active relations, `depth` hops (clamped to 1..3), bounded
 * by `RECALL_SEEDS_MAX` seeds and `RECALL_RELATIONS_MAX` relations, inside one read transaction.
 * The result is normalised by `mergeRecall`, so a single store and a merged light memory read
 * alike.
 *
 * Trust. Rows are read without zod: the tables are STRICT with NOT NULL columns, so SQLite itself
 * guarantees every column's type; the boundary check is done once, at open, on the schema.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  AssertionError,
  type CommitResult,
  EMPTY_RECALL,
  type ExportedTriple,
  type GraphMemory,
  MemoryError,
  mergeRecall,
  type Recall,
  RECALL_DEPTH_MAX,
  type RecallEntity,
  type RecallRelation,
  type Triple,
  validTriple,
} from '../kernel/index.ts';
import { sqliteCode, toMemoryError, type StoreMode } from './sqlite-errors.ts';

/** Version of the schema below, kept in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;
/** How long a statement waits for another connection's lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS_DEFAULT = 1000;
/** At most this many entities match the keywords (most-mentioned first). */
export const RECALL_SEEDS_MAX = 64;
/** At most this many relations per recall (a hub entity must not flood the model's context). */
export const RECALL_RELATIONS_MAX = 256;
export const ENTITY_TYPE_DEFAULT = 'Concept';
const STATUS_ACTIVE = 'active';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entities (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  name          TEXT    NOT NULL UNIQUE,
  name_lower    TEXT    NOT NULL,
  type          TEXT    NOT NULL DEFAULT '${ENTITY_TYPE_DEFAULT}',
  mention_count INTEGER NOT NULL DEFAULT 1,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS entities_type ON entities(type);

-- Substring search over name_lower: an external-content FTS5 table with the trigram tokenizer,
-- case-sensitive because name_lower is already lower-cased (by JavaScript, Unicode-aware). A
-- quoted MATCH phrase of n ≥ 3 code points is exactly "name_lower contains it".
CREATE VIRTUAL TABLE IF NOT EXISTS entities_fts USING fts5(
  name_lower, content = 'entities', content_rowid = 'id', tokenize = 'trigram case_sensitive 1'
);
CREATE TRIGGER IF NOT EXISTS entities_fts_insert AFTER INSERT ON entities BEGIN
  INSERT INTO entities_fts (rowid, name_lower) VALUES (new.id, new.name_lower);
END;
CREATE TRIGGER IF NOT EXISTS entities_fts_delete AFTER DELETE ON entities BEGIN
  INSERT INTO entities_fts (entities_fts, rowid, name_lower) VALUES ('delete', old.id, old.name_lower);
END;
CREATE TRIGGER IF NOT EXISTS entities_fts_update AFTER UPDATE OF name_lower ON entities BEGIN
  INSERT INTO entities_fts (entities_fts, rowid, name_lower) VALUES ('delete', old.id, old.name_lower);
  INSERT INTO entities_fts (rowid, name_lower) VALUES (new.id, new.name_lower);
END;

CREATE TABLE IF NOT EXISTS sentences (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  text       TEXT    NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS relations (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  source_id     INTEGER NOT NULL REFERENCES entities(id),
  target_id     INTEGER NOT NULL REFERENCES entities(id),
  relation_type TEXT    NOT NULL,
  confidence    REAL    NOT NULL DEFAULT 1.0,
  status        TEXT    NOT NULL DEFAULT '${STATUS_ACTIVE}',
  session_id    TEXT    NOT NULL,
  turn_id       INTEGER NOT NULL DEFAULT 0,
  sentence_id   INTEGER REFERENCES sentences(id),
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (source_id, target_id, relation_type, session_id)
) STRICT;
-- The UNIQUE index already serves lookups by source_id (its first column).
CREATE INDEX IF NOT EXISTS relations_target ON relations(target_id);
CREATE INDEX IF NOT EXISTS relations_type ON relations(relation_type);
CREATE INDEX IF NOT EXISTS relations_session ON relations(session_id);
CREATE INDEX IF NOT EXISTS relations_sentence ON relations(sentence_id);
`;

const TABLES = ['entities', 'relations', 'sentences'] as const;

export interface OpenOptions {
  /** Wait this long for another connection's lock, then fail with a MemoryError. */
  readonly busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` for the main (read-write) handle. 'full' (the default) syncs the WAL at
   * every commit: a commit that returned survives a power cut. 'normal' syncs only at checkpoints:
   * still never corrupt and safe against a crash of the process, but a power cut may lose the last
   * commits. 'off' never syncs: a crash of the machine may corrupt the file, so it is only for files
   * nothing reads after the process ends (the simulator's, deleted with its run). Ignored by read-only
   * handles, which never write.
   */
  readonly synchronous?: 'full' | 'normal' | 'off';
}

const SYNCHRONOUS_PRAGMA = { full: 'FULL', normal: 'NORMAL', off: 'OFF' } as const;

interface EntityRow {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly mentions: number;
}

interface RelationRow {
  readonly id: number;
  readonly sourceId: number;
  readonly relation: string;
  readonly targetId: number;
  readonly confidence: number;
}

interface WalkParams {
  /** A JSON array of entity ids (read with json_each, so one prepared statement serves any count). */
  readonly ids: string;
  readonly limit: number;
}

interface ExportRow {
  readonly subject: string;
  readonly relation: string;
  readonly object: string;
  readonly sentence: string | null;
  readonly confidence: number;
}

/** Keywords shorter than this (in code points) cannot use the trigram index and scan the table. */
const TRIGRAM_MIN = 3;

export class SqliteGraphStore implements GraphMemory {
  /** Opens (creating if missing) the read-write store at `path`, with the schema and WAL. */
  static openMain(path: string, options: OpenOptions = {}): SqliteGraphStore {
    const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS_DEFAULT;
    const db = openDatabase(path, 'main', { timeout: busyTimeoutMs });
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      // Before the switch to WAL, which writes the file: that write already follows this setting.
      db.pragma(`synchronous = ${SYNCHRONOUS_PRAGMA[options.synchronous ?? 'full']}`);
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      const version = db.pragma('user_version', { simple: true });
      if (version !== 0 && version !== SCHEMA_VERSION) {
        throw new MemoryError(
          `graph memory ${path} has schema version ${String(version)}, this build reads version ` +
            `${SCHEMA_VERSION}; open it with the build that wrote it or move the file away`,
        );
      }
      db.transaction(() => {
        db.exec(SCHEMA);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
      return new SqliteGraphStore(db, path, 'main');
    } catch (err) {
      db.close();
      throw toMemoryError(err, path, 'main', 'open');
    }
  }

  /**
   * Opens the existing store at `path` query-only (docs/spec.md §9: the read-only main handle). Never
   * creates a file or a schema; a missing file is a MemoryError naming the path (M2).
   */
  static openReadOnly(path: string, options: OpenOptions = {}): SqliteGraphStore {
    const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS_DEFAULT;
    const db = openDatabase(path, 'read-only', { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.pragma('foreign_keys = ON');
      db.pragma('query_only = 1');
      return new SqliteGraphStore(db, path, 'read-only');
    } catch (err) {
      db.close();
      throw toMemoryError(err, path, 'read-only', 'open');
    }
  }

  readonly path: string;
  readonly mode: StoreMode;
  private readonly db: Database.Database;
  private readonly selectEntityId: Database.Statement<[string], number>;
  private readonly insertEntity: Database.Statement<[string, string, number, number]>;
  private readonly bumpMentions: Database.Statement<[number, number, number]>;
  private readonly selectSentenceId: Database.Statement<[string], number>;
  private readonly insertSentence: Database.Statement<[string, number]>;
  private readonly insertRelation: Database.Statement<
    [number, number, string, string, number, number | null, number, number]
  >;
  private readonly matchEntitiesFts: Database.Statement<[string, number], EntityRow>;
  private readonly matchEntitiesScan: Database.Statement<[string, number], EntityRow>;
  private readonly relationsTouching: Database.Statement<[WalkParams], RelationRow>;
  private readonly entitiesById: Database.Statement<[string], EntityRow>;
  private readonly readSnapshot: Database.Transaction<(needles: readonly string[], hops: number) => Recall>;
  private readonly exportAll: Database.Statement<[number], ExportRow>;
  private readonly commitBatch: Database.Transaction<
    (triples: readonly Triple[], session: string, turn: number, nowMs: number) => number
  >;

  private constructor(db: Database.Database, path: string, mode: StoreMode) {
    this.db = db;
    this.path = path;
    this.mode = mode;
    checkSchema(db, path);
    this.selectEntityId = db.prepare<[string], number>('SELECT id FROM entities WHERE name = ?').pluck();
    this.insertEntity = db.prepare<[string, string, number, number]>(
      'INSERT INTO entities (name, name_lower, mention_count, created_at, updated_at) VALUES (?, ?, 1, ?, ?)',
    );
    this.bumpMentions = db.prepare<[number, number, number]>(
      'UPDATE entities SET mention_count = mention_count + 1, updated_at = ? WHERE id IN (?, ?)',
    );
    this.selectSentenceId = db.prepare<[string], number>('SELECT id FROM sentences WHERE text = ?').pluck();
    this.insertSentence = db.prepare<[string, number]>('INSERT INTO sentences (text, created_at) VALUES (?, ?)');
    this.insertRelation = db.prepare<[number, number, string, string, number, number | null, number, number]>(
      `INSERT INTO relations
         (source_id, target_id, relation_type, session_id, turn_id, sentence_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (source_id, target_id, relation_type, session_id) DO NOTHING`,
    );
    const entityColumns = 'e.id AS id, e.name AS name, e.type AS type, e.mention_count AS mentions';
    const bestFirst = 'ORDER BY e.mention_count DESC, e.id LIMIT ?';
    this.matchEntitiesFts = db.prepare<[string, number], EntityRow>(
      `SELECT ${entityColumns} FROM entities_fts f JOIN entities e ON e.id = f.rowid
       WHERE entities_fts MATCH ? ${bestFirst}`,
    );
    this.matchEntitiesScan = db.prepare<[string, number], EntityRow>(
      `SELECT ${entityColumns} FROM entities e WHERE instr(e.name_lower, ?) > 0 ${bestFirst}`,
    );
    // Both halves use an index (the UNIQUE key for source_id, relations_target for target_id);
    // UNION drops a relation that touches the frontier at both ends from appearing twice.
    this.relationsTouching = db.prepare<[WalkParams], RelationRow>(
      `SELECT id, source_id AS sourceId, relation_type AS relation, target_id AS targetId, confidence
         FROM relations WHERE source_id IN (SELECT value FROM json_each(@ids)) AND status = '${STATUS_ACTIVE}'
       UNION
       SELECT id, source_id, relation_type, target_id, confidence
         FROM relations WHERE target_id IN (SELECT value FROM json_each(@ids)) AND status = '${STATUS_ACTIVE}'
       ORDER BY id LIMIT @limit`,
    );
    this.entitiesById = db.prepare<[string], EntityRow>(
      `SELECT ${entityColumns} FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
    );
    this.exportAll = db.prepare<[number], ExportRow>(
      `SELECT s.name AS subject, r.relation_type AS relation, t.name AS object, x.text AS sentence,
              r.confidence AS confidence
       FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
       LEFT JOIN sentences x ON x.id = r.sentence_id
       WHERE r.status = '${STATUS_ACTIVE}' ORDER BY r.id LIMIT ?`,
    );
    this.commitBatch = db.transaction(this.commitRows.bind(this));
    this.readSnapshot = db.transaction(this.walk.bind(this));
  }

  recall(keywords: readonly string[], depth: number): Recall {
    this.assertOpen();
    const needles = [...new Set(keywords.map((k) => k.trim().toLowerCase()).filter((k) => k.length > 0))];
    if (needles.length === 0) return EMPTY_RECALL;
    const hops = Number.isFinite(depth) ? Math.min(RECALL_DEPTH_MAX, Math.max(1, Math.floor(depth))) : 1;
    try {
      // One read transaction: every query of the walk sees the same snapshot of the file.
      return this.readSnapshot.deferred(needles, hops);
    } catch (err) {
      throw toMemoryError(err, this.path, this.mode, 'recall');
    }
  }

  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    this.assertOpen();
    try {
      // The main store takes the write lock up front (BEGIN IMMEDIATE), so a concurrent writer
      // makes it wait busy_timeout instead of failing a read-to-write upgrade. A read-only handle
      // begins DEFERRED: its first INSERT is what SQLite refuses (M1), no check of ours decides.
      const run = this.mode === 'main' ? this.commitBatch.immediate : this.commitBatch.deferred;
      const added = run(triples, session, turn, Math.floor(nowMs));
      return { added, skipped: triples.length - added };
    } catch (err) {
      throw toMemoryError(err, this.path, this.mode, 'commit');
    }
  }

  exportTriples(limit: number): ExportedTriple[] {
    this.assertOpen();
    try {
      // LIMIT -1 is "no limit" in SQLite.
      const rows = this.exportAll.all(limit > 0 ? Math.floor(limit) : -1);
      return rows.map((r) => {
        const t = { subject: r.subject, relation: r.relation, object: r.object, confidence: r.confidence };
        return r.sentence === null ? t : { ...t, sentence: r.sentence };
      });
    } catch (err) {
      throw toMemoryError(err, this.path, this.mode, 'export');
    }
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  /** Closes the connection. Idempotent. */
  close(): void {
    if (this.db.open) this.db.close();
  }

  /** The body of one commit transaction; returns the number of relations newly stored. */
  private commitRows(triples: readonly Triple[], session: string, turn: number, nowMs: number): number {
    let added = 0;
    for (const t of triples) {
      if (!validTriple(t)) continue;
      const subject = this.entityId(t.subject.trim(), nowMs);
      const object = this.entityId(t.object.trim(), nowMs);
      // In a self-relation the second lookup finds the entity the first one created.
      const objectCreated = object.id === subject.id ? subject.created : object.created;
      const sentence = t.sentence === undefined ? '' : t.sentence.trim();
      const sentenceId = sentence === '' ? null : this.sentenceId(sentence, nowMs);
      const inserted = this.insertRelation.run(
        subject.id,
        object.id,
        t.relation.trim(),
        session,
        turn,
        sentenceId,
        nowMs,
        nowMs,
      );
      if (inserted.changes === 0) continue;
      added += 1;
      // A new entity starts at one mention; an existing one gains one per new relation naming it.
      // The UPDATE's `IN (?, ?)` counts a self-relation once.
      if (!subject.created || !objectCreated) {
        this.bumpMentions.run(nowMs, subject.created ? object.id : subject.id, objectCreated ? subject.id : object.id);
      }
    }
    return added;
  }

  private entityId(name: string, nowMs: number): { id: number; created: boolean } {
    const id = this.selectEntityId.get(name);
    if (id !== undefined) return { id, created: false };
    const row = this.insertEntity.run(name, name.toLowerCase(), nowMs, nowMs);
    return { id: Number(row.lastInsertRowid), created: true };
  }

  private sentenceId(text: string, nowMs: number): number {
    const id = this.selectSentenceId.get(text);
    if (id !== undefined) return id;
    return Number(this.insertSentence.run(text, nowMs).lastInsertRowid);
  }

  /**
   * Seeds from the keywords (most-mentioned first, at most RECALL_SEEDS_MAX), then `hops`
   * breadth-first hops: each hop takes the active relations touching the frontier, lowest id first
   * within the remaining RECALL_RELATIONS_MAX budget, and their unseen endpoints form the next
   * frontier. Three statements per hop whatever the frontier's size.
   */
  private walk(needles: readonly string[], hops: number): Recall {
    const entities = new Map<number, RecallEntity>();
    for (const needle of needles) {
      const rows =
        codePoints(needle) >= TRIGRAM_MIN
          ? this.matchEntitiesFts.all(ftsPhrase(needle), RECALL_SEEDS_MAX)
          : this.matchEntitiesScan.all(needle, RECALL_SEEDS_MAX);
      for (const row of rows) {
        if (entities.size >= RECALL_SEEDS_MAX) break;
        entities.set(row.id, { name: row.name, type: row.type, mentions: row.mentions });
      }
    }
    const relations = new Map<number, RelationRow>();
    let frontier = [...entities.keys()];
    for (let hop = 0; hop < hops && frontier.length > 0; hop += 1) {
      const limit = RECALL_RELATIONS_MAX - relations.size;
      if (limit <= 0) break;
      const next = new Set<number>();
      for (const row of this.relationsTouching.all({ ids: JSON.stringify(frontier), limit })) {
        if (relations.has(row.id)) continue;
        relations.set(row.id, row);
        for (const id of [row.sourceId, row.targetId]) {
          if (!entities.has(id)) next.add(id);
        }
      }
      frontier = [...next];
      for (const row of this.entitiesById.all(JSON.stringify(frontier))) {
        entities.set(row.id, { name: row.name, type: row.type, mentions: row.mentions });
      }
    }
    const nameOf = (id: number): string => {
      const e = entities.get(id);
      if (e === undefined) throw new AssertionError(`RECALL relation endpoint ${id} not loaded (foreign key broken?)`);
      return e.name;
    };
    const recalled: RecallRelation[] = [...relations.values()].map((r) => ({
      source: nameOf(r.sourceId),
      relation: r.relation,
      target: nameOf(r.targetId),
      confidence: r.confidence,
    }));
    return mergeRecall({ entities: [...entities.values()], relations: recalled }, EMPTY_RECALL);
  }

  private assertOpen(): void {
    if (!this.db.open) {
      throw new MemoryError(
        `graph memory ${this.path} (${this.mode}) is closed; open it again with ` +
          `SqliteGraphStore.${this.mode === 'main' ? 'openMain' : 'openReadOnly'}`,
      );
    }
  }
}

function openDatabase(path: string, mode: StoreMode, options: Database.Options): Database.Database {
  // better-sqlite3 refuses a missing directory itself, with a TypeError that names no path.
  const directory = dirname(path);
  if (!existsSync(directory)) {
    if (mode === 'read-only') throw mainMissing(path);
    throw new MemoryError(
      `open on graph memory ${path} (${mode}) failed: its directory ${directory} does not exist; ` +
        'create the directory or point at another path',
    );
  }
  try {
    return new Database(path, options);
  } catch (err) {
    if (mode === 'read-only' && sqliteCode(err) === 'SQLITE_CANTOPEN') throw mainMissing(path, err);
    throw toMemoryError(err, path, mode, 'open');
  }
}

/** A read-only open of a main store that is not there (M2). */
function mainMissing(path: string, cause?: unknown): MemoryError {
  const message = `main graph memory ${path} does not exist; create it with openMain first`;
  return cause === undefined ? new MemoryError(message) : new MemoryError(message, { cause });
}

/**
 * The boundary check on a file: the three tables exist and are STRICT (so rows need no zod), and
 * the name index exists.
 */
function checkSchema(db: Database.Database, path: string): void {
  const strict = db
    .prepare<[], string>(
      `SELECT name FROM pragma_table_list WHERE schema = 'main' AND strict = 1
       AND name IN (${TABLES.map((t) => `'${t}'`).join(', ')})`,
    )
    .pluck()
    .all();
  const fts = db
    .prepare<[], number>(`SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND name = 'entities_fts'`)
    .pluck()
    .get();
  const missing = [...TABLES.filter((t) => !strict.includes(t)), ...(fts === 1 ? [] : ['entities_fts'])];
  if (missing.length > 0) {
    throw new MemoryError(
      `${path} is not a graph memory of this build (missing or non-STRICT tables: ${missing.join(', ')}); ` +
        'create it with SqliteGraphStore.openMain or point at the right file',
    );
  }
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** A MATCH operand that FTS5 reads as one literal phrase: double quotes inside are doubled. */
function ftsPhrase(needle: string): string {
  return `"${needle.replaceAll('"', '""')}"`;
}
