/**
 * What a graph memory file that cannot be used answers (src/memory/sqlite-store.ts): a MemoryError
 * that names the file, the handle's mode, SQLite's own message and code, and what to do — never a
 * bare driver error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryError } from '../../src/kernel/ports/graph-memory.ts';
import { SqliteGraphStore } from '../../src/memory/sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-memory-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function failure(open: () => { close(): void }): Error {
  let store: { close(): void } | null = null;
  try {
    store = open();
  } catch (err) {
    return err as Error;
  } finally {
    store?.close();
  }
  throw new Error('expected the store to refuse');
}

describe('opening a file that is no graph memory', () => {
  it('a file that is not SQLite, in either mode', () => {
    const path = join(dir, 'text.db');
    writeFileSync(path, 'this is not sqlite at all, just some bytes'.repeat(40));
    for (const [mode, open] of [
      ['main', () => SqliteGraphStore.openMain(path)],
      ['read-only', () => SqliteGraphStore.openReadOnly(path)],
    ] as const) {
      const err = failure(open);
      expect(err).toBeInstanceOf(MemoryError);
      expect(err.message).toBe(
        `open on graph memory ${path} (${mode}) failed: the file is not a usable SQLite database ` +
          '(SQLite: file is not a database [SQLITE_NOTADB]); move it away and let openMain create a new one, or restore a backup',
      );
      expect(err.cause).toBeInstanceOf(Database.SqliteError);
    }
  });

  it('a SQLite file without the graph tables, naming every one missing', () => {
    const path = join(dir, 'other.db');
    const db = new Database(path);
    db.exec('CREATE TABLE notes (x TEXT)');
    db.close();
    expect(failure(() => SqliteGraphStore.openReadOnly(path))).toEqual(
      new MemoryError(
        `${path} is not a graph memory of this build (missing or non-STRICT tables: entities, relations, ` +
          'sentences, entities_fts); create it with SqliteGraphStore.openMain or point at the right file',
      ),
    );
  });

  it('a path whose directory does not exist, in either mode', () => {
    const path = join(dir, 'no-such-dir', 'main.db');
    const main = failure(() => SqliteGraphStore.openMain(path));
    expect(main).toBeInstanceOf(MemoryError);
    expect(main.message).toBe(
      `open on graph memory ${path} (main) failed: its directory ${join(dir, 'no-such-dir')} does not exist; ` +
        'create the directory or point at another path',
    );
    expect(failure(() => SqliteGraphStore.openReadOnly(path))).toEqual(
      new MemoryError(`main graph memory ${path} does not exist; create it with openMain first`),
    );
  });

  it('a path that is a directory', () => {
    const err = failure(() => SqliteGraphStore.openMain(dir));
    expect(err).toBeInstanceOf(MemoryError);
    expect(err.message).toMatch(
      new RegExp(
        `^open on graph memory ${dir} \\(main\\) failed: cannot open the file \\(SQLite: .+ \\[SQLITE_CANTOPEN\\]\\); check the path and its directory$`,
      ),
    );
  });
});

describe('a read-only handle', () => {
  it('refuses a write with what to do, and once closed names openReadOnly to reopen it', () => {
    const path = join(dir, 'main.db');
    SqliteGraphStore.openMain(path).close();
    const store = SqliteGraphStore.openReadOnly(path);
    const write = failure(() => {
      store.commit([{ subject: 'alice', relation: 'likes', object: 'tea' }], 's', 1, 0);
      return store;
    });
    expect(write.message).toBe(
      `commit on graph memory ${path} (read-only) refused: the handle is read-only (SQLite: attempt to write a ` +
        'readonly database [SQLITE_READONLY]); write through a store opened with SqliteGraphStore.openMain — a ' +
        'child writes to its own temp store',
    );
    store.close();
    const closed = `graph memory ${path} (read-only) is closed; open it again with SqliteGraphStore.openReadOnly`;
    expect(() => store.recall(['alice'], 1)).toThrow(new MemoryError(closed));
    expect(() => store.exportTriples(0)).toThrow(new MemoryError(closed));
  });
});

describe('a file spoiled while it is open', () => {
  it('recall and export fail with a MemoryError naming the call, the file, the mode and what to do', () => {
    const path = join(dir, 'spoiled.db');
    const main = SqliteGraphStore.openMain(path);
    main.commit([{ subject: 'Alice', relation: 'knows', object: 'Bob' }], 's', 1, 0);
    main.close();
    const store = SqliteGraphStore.openReadOnly(path);
    try {
      writeFileSync(path, Buffer.alloc(16384, 0x41));
      const spoiled = (call: string): MemoryError =>
        new MemoryError(
          `${call} on graph memory ${path} (read-only) failed: the file is not a usable SQLite database (SQLite: ` +
            'database disk image is malformed [SQLITE_CORRUPT]); move it away and let openMain create a new one, or ' +
            'restore a backup',
        );
      expect(() => store.recall(['alice'], 1)).toThrow(spoiled('recall'));
      expect(() => store.exportTriples(0)).toThrow(spoiled('export'));
    } finally {
      store.close();
    }
  });
});
