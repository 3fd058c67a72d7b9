/**
 * A child's light memory (temp store + read-only main) and reclaim promotion, on real SQLite files
 * in a temporary directory.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError, type Recall, type Triple } from '../../src/kernel/ports/graph-memory.ts';
import { LightMemory, promoteTriples, type ClosableGraphMemory } from '../../src/memory/light-memory.ts';
import { SqliteGraphStore } from '../../src/memory/sqlite-store.ts';
import { openFilesUnder } from '../support/open-files.ts';

let dir: string;
let mainPath: string;
let main: SqliteGraphStore;
const open: { close(): void }[] = [];
const track = <T extends { close(): void }>(x: T): T => {
  open.push(x);
  return x;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-light-'));
  mainPath = join(dir, 'main.db');
  main = track(SqliteGraphStore.openMain(mainPath));
});

afterEach(() => {
  for (const x of open.splice(0)) x.close();
  rmSync(dir, { recursive: true, force: true });
});

const NOW = 1_700_000_000_000;
const child = (id: string): LightMemory => track(LightMemory.open({ tempPath: join(dir, `temp-${id}.db`), mainPath }));
const names = (r: Recall): string[] => r.entities.map((e) => e.name);
const edges = (r: Recall): string[] => r.relations.map((x) => `${x.source} ${x.relation} ${x.target}`);

const worksAt: Triple = { subject: 'Alice', relation: 'works_at', object: 'Acme' };
const likesTea: Triple = { subject: 'alice', relation: 'likes', object: 'Tea', sentence: 'Alice likes tea.' };

describe('LightMemory', () => {
  it("S13 a child's commit goes to its temp store only; main is unchanged", () => {
    main.commit([worksAt], 'root', 1, NOW);
    const before = main.exportTriples(0);
    const c = child('c1');
    expect(c.commit([likesTea], 'c1', 1, NOW)).toEqual({ added: 1, skipped: 0 });
    expect(main.exportTriples(0)).toEqual(before);
    expect(main.recall(['tea'], 1)).toEqual({ entities: [], relations: [] });
    expect(c.exportTriples(0)).toEqual([{ ...likesTea, confidence: 1 }]);
    const temp = track(new Database(c.tempPath, { readonly: true }));
    expect(temp.prepare('SELECT count(*) FROM relations').pluck().get()).toBe(1);
  });

  it('S14 recall = temp ∪ main, merged', () => {
    main.commit([worksAt, { subject: 'Acme', relation: 'based_in', object: 'Berlin' }], 'root', 1, NOW);
    const c = child('c1');
    c.commit([likesTea, { subject: 'alice', relation: 'works_at', object: 'Acme' }], 'c1', 1, NOW);
    const r = c.recall(['alice'], 1);
    // Main's "Alice works_at Acme" and temp's "alice works_at Acme" are one relation.
    expect(edges(r)).toEqual(['Alice works_at Acme', 'alice likes Tea']);
    // Alice (main, 1 mention) and alice (temp, 2 mentions) are one entity; the larger count wins.
    expect(r.entities).toEqual([
      { name: 'Acme', type: 'Concept', mentions: 2 }, // main: works_at and based_in
      { name: 'Tea', type: 'Concept', mentions: 1 },
      { name: 'alice', type: 'Concept', mentions: 2 },
    ]);
    // The main side's own neighbourhood is there too.
    expect(edges(c.recall(['berlin'], 1))).toEqual(['Acme based_in Berlin']);
  });

  it('M5 union recall applies the merge rules across temp and main (case, counts, duplicates, order)', () => {
    main.commit(
      [
        { subject: 'ALICE', relation: 'KNOWS', object: 'Bob' },
        { subject: 'ALICE', relation: 'met', object: 'Zed' },
        { subject: 'ALICE', relation: 'met', object: 'Yan' },
      ],
      'root',
      1,
      NOW,
    );
    const c = child('c1');
    c.commit([{ subject: 'alice', relation: 'knows', object: 'bob' }], 'c1', 1, NOW);
    const r = c.recall(['alice'], 1);
    expect(r.entities).toEqual([
      { name: 'ALICE', type: 'Concept', mentions: 3 },
      { name: 'Bob', type: 'Concept', mentions: 1 },
      { name: 'Yan', type: 'Concept', mentions: 1 },
      { name: 'Zed', type: 'Concept', mentions: 1 },
    ]);
    expect(edges(r)).toEqual(['ALICE KNOWS Bob', 'ALICE met Yan', 'ALICE met Zed']);
  });

  it("S15 two children's temps are isolated from each other and from main", () => {
    main.commit([worksAt], 'root', 1, NOW);
    const a = child('a');
    const b = child('b');
    a.commit([{ subject: 'Secret-A', relation: 'is', object: 'hidden' }], 'a', 1, NOW);
    b.commit([{ subject: 'Secret-B', relation: 'is', object: 'hidden' }], 'b', 1, NOW);
    expect(names(a.recall(['secret'], 1))).toEqual(['Secret-A', 'hidden']);
    expect(names(b.recall(['secret'], 1))).toEqual(['Secret-B', 'hidden']);
    expect(main.recall(['secret'], 1)).toEqual({ entities: [], relations: [] });
    // Both still see main.
    expect(edges(a.recall(['acme'], 1))).toEqual(['Alice works_at Acme']);
    expect(edges(b.recall(['acme'], 1))).toEqual(['Alice works_at Acme']);
  });

  it('M2 a child cannot be given a missing main: MemoryError, and no temp file is created', () => {
    const tempPath = join(dir, 'temp-x.db');
    expect(() => LightMemory.open({ tempPath, mainPath: join(dir, 'nope.db') })).toThrow(
      /does not exist; create it with openMain/,
    );
    expect(existsSync(tempPath)).toBe(false);
  });

  it('discard deletes the temp file with its -wal/-shm and leaves main alone; close keeps it', () => {
    const c = child('c1');
    c.commit([likesTea], 'c1', 1, NOW);
    expect(readdirSync(dir).filter((f) => f.startsWith('temp-c1'))).toEqual(
      expect.arrayContaining(['temp-c1.db', 'temp-c1.db-wal', 'temp-c1.db-shm']),
    );
    c.discard();
    c.discard();
    expect(readdirSync(dir).filter((f) => f.startsWith('temp-c1'))).toEqual([]);
    expect(existsSync(mainPath)).toBe(true);
    expect(() => c.recall(['tea'], 1)).toThrow(/was discarded/);
    expect(() => c.commit([likesTea], 'c1', 2, NOW)).toThrow(MemoryError);

    const d = child('d1');
    d.commit([likesTea], 'd1', 1, NOW);
    d.close();
    expect(existsSync(d.tempPath)).toBe(true);
    expect(() => d.exportTriples(0)).toThrow(/was closed/);
    // A closed light memory can still be discarded.
    d.discard();
    expect(existsSync(d.tempPath)).toBe(false);
  });

  it('recall skips a side that fails and is a MemoryError naming both when both fail', () => {
    const temp = SqliteGraphStore.openMain(join(dir, 'temp-s.db'));
    temp.commit([likesTea], 's', 1, NOW);
    const failing: ClosableGraphMemory = {
      recall: () => {
        throw new MemoryError('main is unavailable');
      },
      commit: () => ({ added: 0, skipped: 0 }),
      exportTriples: () => [],
      close: () => {},
    };
    const c = track(new LightMemory(temp, failing));
    expect(edges(c.recall(['tea'], 1))).toEqual(['alice likes Tea']);
    temp.close(); // now the temp side fails too
    expect(() => c.recall(['tea'], 1)).toThrow(/failed on both sides; temp: .*is closed.*; main: main is unavailable/);
  });

  it('recall skips the temp side when it is the one that fails', () => {
    main.commit([worksAt], 'root', 1, NOW);
    const temp = SqliteGraphStore.openMain(join(dir, 'temp-t.db'));
    const c = track(new LightMemory(temp, track(SqliteGraphStore.openReadOnly(mainPath))));
    temp.close();
    expect(edges(c.recall(['alice'], 1))).toEqual(['Alice works_at Acme']);
  });

  it('a temp store that cannot be created leaves main closed again, and nothing behind', () => {
    const tempPath = join(dir, 'no-such-dir', 'temp.db');
    expect(() => LightMemory.open({ tempPath, mainPath })).toThrow(MemoryError);
    main.close(); // the test's own handle: what is open after it is what the failed open left
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('a bug on one side is not swallowed', () => {
    const temp = SqliteGraphStore.openMain(join(dir, 'temp-b.db'));
    const buggy: ClosableGraphMemory = {
      recall: () => {
        throw new TypeError('bug');
      },
      commit: () => ({ added: 0, skipped: 0 }),
      exportTriples: () => [],
      close: () => {},
    };
    const c = track(new LightMemory(temp, buggy));
    expect(() => c.recall(['x'], 1)).toThrow(TypeError);
  });

  it('refuses a read-only temp store', () => {
    const ro = track(SqliteGraphStore.openReadOnly(mainPath));
    expect(() => new LightMemory(ro, ro)).toThrow(/temp store .* is read-only; open it with SqliteGraphStore.openMain/);
  });
});

describe('promote (reclaim)', () => {
  const learnt: Triple[] = [
    { subject: 'Zoe', relation: 'owns', object: 'Yacht', sentence: 'Zoe owns a yacht.' },
    { subject: 'Zoe', relation: 'fears', object: 'Sharks' },
    { subject: 'Yacht', relation: 'named', object: 'Wave-Runner' },
  ];

  it('M6 promotes the selected exported triples into main under reclaim/<id>, turn 0; recall from main finds them', () => {
    const c = child('c7');
    c.commit(learnt, 'c7', 3, NOW);
    const exported = c.exportTriples(0);
    expect(promoteTriples(main, exported, [2, 0], 'c7', NOW + 5)).toEqual({ added: 2, skipped: 0 });
    const r = main.recall(['zoe', 'yacht'], 1);
    expect(edges(r)).toEqual(['Yacht named Wave-Runner', 'Zoe owns Yacht']);
    expect(names(main.recall(['sharks'], 1))).toEqual([]); // index 1 was not kept
    expect(main.exportTriples(0)).toEqual([
      { ...learnt[0], confidence: 1 },
      { ...learnt[2], confidence: 1 },
    ]);
    const db = track(new Database(mainPath, { readonly: true }));
    expect(db.prepare('SELECT DISTINCT session_id, turn_id, created_at FROM relations').all()).toEqual([
      { session_id: 'reclaim/c7', turn_id: 0, created_at: NOW + 5 },
    ]);
  });

  it('M6 re-promotion is idempotent; keep undefined promotes all; duplicate indexes count once', () => {
    const c = child('c8');
    c.commit(learnt, 'c8', 1, NOW);
    expect(c.promote(main, [1, 1], 'c8', NOW)).toEqual({ added: 1, skipped: 0 });
    expect(c.promote(main, undefined, 'c8', NOW)).toEqual({ added: 2, skipped: 1 });
    expect(c.promote(main, undefined, 'c8', NOW)).toEqual({ added: 0, skipped: 3 });
    expect(main.exportTriples(0)).toHaveLength(3);
    expect(edges(main.recall(['zoe'], 1))).toEqual(['Zoe fears Sharks', 'Zoe owns Yacht']);
  });

  it('M6 an out-of-range keep index is a MemoryError and nothing is promoted', () => {
    const c = child('c9');
    c.commit(learnt, 'c9', 1, NOW);
    expect(() => c.promote(main, [0, 3, -1], 'c9', NOW)).toThrow(
      'cannot promote triples of c9: keep index -1, 3 out of range (3 exported triples, valid indexes are 0..2); nothing was promoted',
    );
    expect(() => c.promote(main, [0.5], 'c9', NOW)).toThrow(MemoryError);
    expect(() => child('empty').promote(main, [0], 'empty', NOW)).toThrow(
      'cannot promote triples of empty: keep index 0 out of range (0 exported triples, none exist); nothing was promoted',
    );
    expect(main.exportTriples(0)).toEqual([]);
  });

  it('M1 promoting through a read-only main handle is refused by SQLite', () => {
    const c = child('c10');
    c.commit(learnt, 'c10', 1, NOW);
    const ro = track(SqliteGraphStore.openReadOnly(mainPath));
    expect(() => c.promote(ro, undefined, 'c10', NOW)).toThrow(/read-only.*SQLITE_READONLY/);
    expect(main.exportTriples(0)).toEqual([]);
  });
});
