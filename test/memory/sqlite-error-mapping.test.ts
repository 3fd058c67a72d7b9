/**
 * How SQLite's failures become graph memory errors (src/memory/sqlite-errors.ts): each kind a caller can
 * act on, by its primary code and by an extended code of it, is a MemoryError naming the call, the file,
 * the handle's mode, SQLite's message and code, and what to do, with the driver's error as its cause;
 * anything else — another SQLite code, an error that is not SQLite's — is handed back unchanged.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MemoryError } from '../../src/kernel/index.ts';
import { sqliteCode, toMemoryError } from '../../src/memory/sqlite-errors.ts';

const PATH = '/data/memory.sqlite';
const sqlite = (code: string): Error => new Database.SqliteError(`failed with ${code}`, code);

function mapped(code: string, mode: 'main' | 'read-only' = 'main'): MemoryError {
  const cause = sqlite(code);
  const err = toMemoryError(cause, PATH, mode, 'commit');
  if (!(err instanceof MemoryError)) throw new Error(`${code} was not mapped`);
  expect(err.cause).toBe(cause);
  return err;
}

describe('toMemoryError', () => {
  it('each kind, by its primary and its extended codes, says what happened and what to do', () => {
    const cases: [string[], (what: string, sql: string) => string][] = [
      [
        ['SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED'],
        (what, sql) =>
          `${what} refused: the handle is read-only (${sql}); write through a store opened with SqliteGraphStore.openMain — a child writes to its own temp store`,
      ],
      [
        ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE'],
        (what, sql) =>
          `${what} failed: the database is locked by another connection (${sql}); nothing of this call was written and earlier commits are intact; retry once the other writer has committed`,
      ],
      [
        ['SQLITE_CANTOPEN', 'SQLITE_CANTOPEN_ISDIR'],
        (what, sql) => `${what} failed: cannot open the file (${sql}); check the path and its directory`,
      ],
      [
        ['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX'],
        (what, sql) =>
          `${what} failed: the file is not a usable SQLite database (${sql}); move it away and let openMain create a new one, or restore a backup`,
      ],
      [
        ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC'],
        (what, sql) => `${what} failed: disk or I/O error (${sql}); free space or check the disk`,
      ],
    ];
    for (const [codes, message] of cases)
      for (const code of codes)
        expect(mapped(code).message, code).toBe(
          message(`commit on graph memory ${PATH} (main)`, `SQLite: failed with ${code} [${code}]`),
        );
    expect(mapped('SQLITE_FULL', 'read-only').message).toMatch(
      /^commit on graph memory \/data\/memory\.sqlite \(read-only\) failed: disk/,
    );
  });

  it('hands back unchanged another SQLite code, an error that is not SQLite’s, a MemoryError, and a non-error', () => {
    for (const err of [
      sqlite('SQLITE_CONSTRAINT_FOREIGNKEY'),
      sqlite('SQLITE_MISMATCH'),
      sqlite('SQLITE_ERROR'),
      new TypeError('a bug'),
      new MemoryError('already one'),
      'a string',
    ])
      expect(toMemoryError(err, PATH, 'main', 'recall')).toBe(err);
  });

  it('reads the code of SQLite’s errors only', () => {
    expect(sqliteCode(sqlite('SQLITE_BUSY'))).toBe('SQLITE_BUSY');
    expect(sqliteCode(Object.assign(new Error('looks like it'), { code: 'SQLITE_BUSY' }))).toBeUndefined();
  });
});
