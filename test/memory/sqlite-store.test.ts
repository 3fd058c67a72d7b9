/**
 * The SQLite graph store against real SQLite files in a temporary directory (no database mocks).
 * A second, raw better-sqlite3 connection is used only to look at the file from outside or to hold
 * a lock, as another process would.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError, type Triple } from '../../src/kernel/ports/graph-memory.ts';
import { RECALL_RELATIONS_MAX, RECALL_SEEDS_MAX, SqliteGraphStore } from '../../src/memory/sqlite-store.ts';

let dir: string;
const open: { close(): void }[] = [];
const track = <T extends { close(): void }>(x: T): T => {
  open.push(x);
  return x;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-store-'));
});

afterEach(() => {
  for (const x of open.splice(0)) x.close();
  rmSync(dir, { recursive: true, force: true });
});

const NOW = 1_700_000_000_000;
const mainAt = (name = 'main.db'): SqliteGraphStore => track(SqliteGraphStore.openMain(join(dir, name)));
/** A raw connection on the same file, for looking from outside (never through the store). */
const raw = (path: string, options: Database.Options = {}): Database.Database => track(new Database(path, options));
const count = (db: Database.Database, table: string): number =>
  db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? -1;

const alice: Triple = { subject: 'Alice', relation: 'works_at', object: 'Acme', sentence: 'Alice works at Acme.' };
const bob: Triple = { subject: 'Bob', relation: 'knows', object: 'Alice' };
const carol: Triple = { subject: 'Carol', relation: 'likes', object: 'Bob' };

describe('SqliteGraphStore.openMain', () => {
  it('creates the file, the schema, WAL journal and foreign keys', () => {
    const path = join(dir, 'main.db');
    mainAt();
    expect(existsSync(path)).toBe(true);
    const db = raw(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db
      .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(expect.arrayContaining(['entities', 'relations', 'sentences']));
    const fks = db
      .prepare<[], { table: string; from: string }>(
        'SELECT "table", "from" FROM pragma_foreign_key_list(\'relations\')',
      )
      .all();
    expect(fks).toEqual(
      expect.arrayContaining([
        { table: 'entities', from: 'source_id' },
        { table: 'entities', from: 'target_id' },
        { table: 'sentences', from: 'sentence_id' },
      ]),
    );
  });

  it('reopens an existing store and keeps its rows', () => {
    mainAt().commit([alice], 's', 1, NOW);
    open.splice(0).forEach((x) => x.close());
    expect(mainAt().exportTriples(0)).toEqual([{ ...alice, confidence: 1 }]);
  });

  it('refuses a file that is not a graph memory, and a newer schema version, with what to do', () => {
    const other = join(dir, 'other.db');
    raw(other).exec('CREATE TABLE notes (x TEXT)');
    expect(() => SqliteGraphStore.openReadOnly(other)).toThrow(/not a graph memory of this build.*openMain/);
    const text = join(dir, 'text.db');
    writeFileSync(text, 'this is not sqlite at all, just some bytes that are long enough to be a header'.repeat(20));
    expect(() => SqliteGraphStore.openMain(text)).toThrow(MemoryError);
    const newer = join(dir, 'newer.db');
    raw(newer).pragma('user_version = 99');
    expect(() => SqliteGraphStore.openMain(newer)).toThrow(/schema version 99/);
  });
});

describe('commit', () => {
  it('stores triples with integer timestamps from nowMs, session and turn', () => {
    const store = mainAt();
    expect(store.commit([alice, bob], 'sess-1', 7, NOW + 0.75)).toEqual({ added: 2, skipped: 0 });
    const db = raw(store.path, { readonly: true });
    const rows = db
      .prepare('SELECT session_id, turn_id, created_at, updated_at, status, confidence FROM relations ORDER BY id')
      .all();
    expect(rows).toEqual([
      { session_id: 'sess-1', turn_id: 7, created_at: NOW, updated_at: NOW, status: 'active', confidence: 1 },
      { session_id: 'sess-1', turn_id: 7, created_at: NOW, updated_at: NOW, status: 'active', confidence: 1 },
    ]);
    expect(count(db, 'sentences')).toBe(1);
  });

  it('M3 re-committing a batch is idempotent: same rows, same mention counts, added 0', () => {
    const store = mainAt();
    const batch = [alice, bob, carol];
    expect(store.commit(batch, 's', 1, NOW)).toEqual({ added: 3, skipped: 0 });
    const exported = store.exportTriples(0);
    const recalled = store.recall(['alice', 'bob', 'carol'], 1);
    expect(store.commit(batch, 's', 2, NOW + 1000)).toEqual({ added: 0, skipped: 3 });
    expect(store.exportTriples(0)).toEqual(exported);
    expect(store.recall(['alice', 'bob', 'carol'], 1)).toEqual(recalled);
    // Trimming is part of the identity: the same triple with padding is the same triple.
    expect(store.commit([{ subject: ' Alice ', relation: ' works_at', object: 'Acme ' }], 's', 3, NOW)).toEqual({
      added: 0,
      skipped: 1,
    });
  });

  it('M3 the relation key includes the session: the same triple in another session is a new relation', () => {
    const store = mainAt();
    store.commit([alice], 's1', 1, NOW);
    expect(store.commit([alice], 's2', 1, NOW)).toEqual({ added: 1, skipped: 0 });
    expect(store.exportTriples(0)).toHaveLength(2);
    // ... but recall merges them (one relation, Alice mentioned twice).
    const r = store.recall(['alice'], 1);
    expect(r.relations).toHaveLength(1);
    expect(r.entities.find((e) => e.name === 'Alice')?.mentions).toBe(2);
  });

  it('M4 invalid triples are skipped and counted: empty field, 1-char, 51-char and punctuation-only names', () => {
    const store = mainAt();
    const invalid: Triple[] = [
      { subject: '', relation: 'is', object: 'Acme' },
      { subject: 'Alice', relation: '   ', object: 'Acme' },
      { subject: 'Alice', relation: 'is', object: '' },
      { subject: 'A', relation: 'is', object: 'Acme' },
      { subject: 'Alice', relation: 'is', object: 'x'.repeat(51) },
      { subject: '?!', relation: 'is', object: 'Acme' },
      { subject: 'Alice', relation: 'is', object: '...' },
    ];
    const valid: Triple[] = [alice, { subject: 'x'.repeat(50), relation: 'is', object: '東京' }];
    expect(store.commit([...invalid, ...valid], 's', 1, NOW)).toEqual({ added: 2, skipped: invalid.length });
    expect(store.exportTriples(0).map((t) => t.object)).toEqual(['Acme', '東京']);
    const db = raw(store.path, { readonly: true });
    expect(count(db, 'entities')).toBe(4); // Alice, Acme, xxx…, 東京: nothing from the invalid ones
  });

  it('counts a mention once per new relation naming the entity', () => {
    const store = mainAt();
    store.commit([alice, bob, { subject: 'Alice', relation: 'likes', object: 'Alice' }], 's', 1, NOW);
    const mentions = Object.fromEntries(store.recall(['a', 'b'], 1).entities.map((e) => [e.name, e.mentions]));
    // Alice: works_at, knows (as object), the self-relation once.
    expect(mentions).toEqual({ Acme: 1, Alice: 3, Bob: 1 });
  });

  it('one transaction per commit: a statement failing half-way rolls back the whole batch', () => {
    const store = mainAt();
    store.commit([alice], 's', 1, NOW);
    // Another connection installs a trigger that makes SQLite abort the third insert of the batch.
    raw(store.path).exec(
      `CREATE TRIGGER poison BEFORE INSERT ON relations WHEN NEW.relation_type = 'poisons'
       BEGIN SELECT RAISE(ABORT, 'poisoned relation'); END`,
    );
    const before = raw(store.path, { readonly: true });
    const snapshot = (): number[] => ['entities', 'relations', 'sentences'].map((t) => count(before, t));
    const rows = snapshot();
    const batch: Triple[] = [
      { subject: 'Dave', relation: 'knows', object: 'Erin', sentence: 'Dave knows Erin.' },
      bob,
      { subject: 'Mallory', relation: 'poisons', object: 'Well' },
      carol,
    ];
    expect(() => store.commit(batch, 's', 2, NOW)).toThrow(/poisoned relation/);
    expect(snapshot()).toEqual(rows);
    expect(store.exportTriples(0)).toEqual([{ ...alice, confidence: 1 }]);
    expect(store.recall(['dave', 'mallory', 'bob'], 1)).toEqual({ entities: [], relations: [] });
    // The store is still usable afterwards.
    expect(store.commit([bob], 's', 3, NOW)).toEqual({ added: 1, skipped: 0 });
  });

  it('a locked database is a MemoryError that says so, loses nothing committed, and works once released', () => {
    const path = join(dir, 'main.db');
    const store = track(SqliteGraphStore.openMain(path, { busyTimeoutMs: 50 }));
    store.commit([alice], 's', 1, NOW);
    const holder = raw(path);
    holder.exec('BEGIN EXCLUSIVE');
    let error: unknown;
    try {
      store.commit([bob], 's', 2, NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as Error).message).toMatch(/locked by another connection.*SQLITE_BUSY.*retry/);
    expect(((error as Error).cause as { code?: string }).code).toBe('SQLITE_BUSY');
    // WAL: readers are not blocked by the writer, and the earlier commit is intact.
    expect(store.exportTriples(0)).toEqual([{ ...alice, confidence: 1 }]);
    holder.exec('COMMIT');
    expect(store.commit([bob], 's', 2, NOW)).toEqual({ added: 1, skipped: 0 });
    expect(store.exportTriples(0)).toHaveLength(2);
  });
});

describe('read-only handle', () => {
  it('M1 a write through the read-only handle is refused by SQLite and nothing is written', () => {
    const main = mainAt();
    main.commit([alice], 's', 1, NOW);
    const ro = track(SqliteGraphStore.openReadOnly(main.path));
    let error: unknown;
    try {
      ro.commit([bob, carol], 's', 2, NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MemoryError);
    const message = (error as Error).message;
    expect(message).toContain('read-only');
    // SQLite's own refusal, not a check of ours: its message and code are in the error.
    expect(message).toContain('attempt to write a readonly database');
    expect(message).toContain('SQLITE_READONLY');
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(Database.SqliteError);
    expect((cause as { code: string }).code).toBe('SQLITE_READONLY');
    // Nothing was written, seen from the main handle, the read-only handle and a raw connection.
    expect(main.exportTriples(0)).toEqual([{ ...alice, confidence: 1 }]);
    expect(ro.recall(['bob', 'carol'], 1)).toEqual({ entities: [], relations: [] });
    const db = raw(main.path, { readonly: true });
    expect([count(db, 'entities'), count(db, 'relations'), count(db, 'sentences')]).toEqual([2, 1, 1]);
  });

  it("M1 the read-only handle sees the main handle's later commits", () => {
    const main = mainAt();
    const ro = track(SqliteGraphStore.openReadOnly(main.path));
    expect(ro.recall(['alice'], 1).entities).toEqual([]);
    main.commit([alice], 's', 1, NOW);
    expect(ro.recall(['alice'], 1).entities.map((e) => e.name)).toEqual(['Acme', 'Alice']);
  });

  it('M2 opening a missing main read-only fails, naming the path, and creates no file', () => {
    const path = join(dir, 'missing.db');
    expect(() => SqliteGraphStore.openReadOnly(path)).toThrow(MemoryError);
    expect(() => SqliteGraphStore.openReadOnly(path)).toThrow(
      `main graph memory ${path} does not exist; create it with openMain first`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('recall', () => {
  it('matches lower-cased substrings of names (Unicode-aware), with the relations touching them', () => {
    const store = mainAt();
    store.commit([alice, bob, { subject: 'ÄPFEL-Hof', relation: 'sells', object: 'Äpfel' }], 's', 1, NOW);
    const r = store.recall(['ACME'], 1);
    expect(r).toEqual({
      entities: [
        { name: 'Acme', type: 'Concept', mentions: 1 },
        { name: 'Alice', type: 'Concept', mentions: 2 },
      ],
      relations: [{ source: 'Alice', relation: 'works_at', target: 'Acme', confidence: 1 }],
    });
    // äpfel matches ÄPFEL-Hof and Äpfel: JavaScript's lower-casing, not SQLite's ASCII-only one.
    expect(store.recall(['äpfel'], 1).entities.map((e) => e.name)).toEqual(['ÄPFEL-Hof', 'Äpfel']);
  });

  it('short keywords (under three code points) and keywords with quotes or wildcards match literally', () => {
    const store = mainAt();
    store.commit(
      [
        { subject: 'R2', relation: 'beeps_at', object: 'C-3PO' },
        { subject: '100% "pure"', relation: 'is', object: 'a_b' },
        { subject: 'xyz', relation: 'is', object: 'axb' },
      ],
      's',
      1,
      NOW,
    );
    expect(store.recall(['r2'], 1).entities.map((e) => e.name)).toEqual(['C-3PO', 'R2']);
    expect(store.recall(['0% "p'], 1).entities.map((e) => e.name)).toEqual(['100% "pure"', 'a_b']);
    // `_` and `%` are not wildcards: 'a_b' does not match axb.
    expect(store.recall(['a_b'], 1).entities.map((e) => e.name)).toEqual(['100% "pure"', 'a_b']);
    expect(store.recall(['%'], 1).entities.map((e) => e.name)).toEqual(['100% "pure"', 'a_b']);
  });

  it('walks depth hops (clamped to 1..3), sorted output', () => {
    const store = mainAt();
    // A chain n0 → n1 → … → n5.
    const chain = Array.from({ length: 5 }, (_, i): Triple => ({
      subject: `n${i}`,
      relation: 'next',
      object: `n${i + 1}`,
    }));
    store.commit(chain, 's', 1, NOW);
    const names = (depth: number): string[] => store.recall(['n0'], depth).entities.map((e) => e.name);
    expect(names(1)).toEqual(['n0', 'n1']);
    expect(names(2)).toEqual(['n0', 'n1', 'n2']);
    expect(names(3)).toEqual(['n0', 'n1', 'n2', 'n3']);
    expect(names(9)).toEqual(names(3));
    expect(names(0)).toEqual(names(1));
    expect(names(Number.NaN)).toEqual(names(1));
    expect(store.recall(['n2'], 1).relations.map((r) => `${r.source}>${r.target}`)).toEqual(['n1>n2', 'n2>n3']);
  });

  it('returns only active relations, nothing for blank keywords, and at most RECALL_RELATIONS_MAX relations', () => {
    const store = mainAt();
    store.commit([alice, bob], 's', 1, NOW);
    raw(store.path).exec("UPDATE relations SET status = 'merged' WHERE relation_type = 'knows'");
    expect(store.recall(['alice'], 1).relations.map((r) => r.relation)).toEqual(['works_at']);
    expect(store.exportTriples(0).map((t) => t.relation)).toEqual(['works_at']);
    expect(store.recall([], 1)).toEqual({ entities: [], relations: [] });
    expect(store.recall(['  '], 1)).toEqual({ entities: [], relations: [] });
    const hub = Array.from({ length: RECALL_RELATIONS_MAX + 20 }, (_, i): Triple => ({
      subject: 'Hub',
      relation: 'links',
      object: `spoke-${i}`,
    }));
    store.commit(hub, 's', 2, NOW);
    expect(store.recall(['hub'], 1).relations).toHaveLength(RECALL_RELATIONS_MAX);
  });

  it(`takes at most RECALL_SEEDS_MAX (${RECALL_SEEDS_MAX}) seeds over all the keywords, the first keyword's first`, () => {
    const store = mainAt();
    const pairs = (seed: string, other: string): Triple[] =>
      Array.from({ length: RECALL_SEEDS_MAX - 4 }, (_, i) => ({
        subject: `${seed}-${i}`,
        relation: 'r',
        object: `${other}-${i}`,
      }));
    store.commit([...pairs('alpha', 'x'), ...pairs('beta', 'y')], 's', 1, NOW);
    const recalled = store.recall(['alpha', 'beta'], 1);
    // Each seed brings its one relation: the seeds are the relations' sources.
    const sources = recalled.relations.map((r) => r.source);
    expect(sources).toHaveLength(RECALL_SEEDS_MAX);
    expect(sources.filter((s) => s.startsWith('alpha-'))).toHaveLength(RECALL_SEEDS_MAX - 4);
    expect(sources.filter((s) => s.startsWith('beta-'))).toHaveLength(4);
  });
});

describe('exportTriples', () => {
  it('lists active relations in insertion order with sentence and confidence; limit ≤ 0 = all', () => {
    const store = mainAt();
    store.commit([alice, bob, carol], 's', 1, NOW);
    expect(store.exportTriples(0)).toEqual([
      { ...alice, confidence: 1 },
      { ...bob, confidence: 1 },
      { ...carol, confidence: 1 },
    ]);
    expect(store.exportTriples(-1)).toHaveLength(3);
    expect(store.exportTriples(2)).toEqual([
      { ...alice, confidence: 1 },
      { ...bob, confidence: 1 },
    ]);
  });
});

describe('close', () => {
  it('is idempotent; a closed store answers with a MemoryError that says how to reopen', () => {
    const store = mainAt();
    store.close();
    store.close();
    expect(() => store.recall(['x'], 1)).toThrow(/is closed; open it again with SqliteGraphStore.openMain/);
    expect(() => store.commit([alice], 's', 1, NOW)).toThrow(MemoryError);
    expect(() => store.exportTriples(0)).toThrow(MemoryError);
  });
});
