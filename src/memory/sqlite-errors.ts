/**
 * SQLite's failures as graph memory errors (docs/spec.md §9): what a store's caller can act on — a
 * read-only handle, a lock held by another connection, a file that cannot be opened or is no database,
 * a full disk — becomes a MemoryError that says what to do. The codes are matched by their prefix, so
 * SQLite's extended codes (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_IOERR_WRITE`, …) land with their primary one.
 */
import Database from 'better-sqlite3';
import { MemoryError } from '../kernel/index.ts';

/** How a store was opened: read and write, or reading only. */
export type StoreMode = 'main' | 'read-only';

export function sqliteCode(err: unknown): string | undefined {
  return err instanceof Database.SqliteError ? err.code : undefined;
}

/**
 * Turns an expected SQLite failure into a MemoryError that says what to do, keeping SQLite's
 * message and code in the text and the original error as `cause`. Anything else (a bug, a
 * constraint our own statements should never break) is returned unchanged.
 */
export function toMemoryError(err: unknown, path: string, mode: StoreMode, action: string): unknown {
  if (err instanceof MemoryError) return err;
  const code = sqliteCode(err);
  if (code === undefined || !(err instanceof Error)) return err;
  const what = `${action} on graph memory ${path} (${mode})`;
  const sqlite = `SQLite: ${err.message} [${code}]`;
  if (code.startsWith('SQLITE_READONLY')) {
    return new MemoryError(
      `${what} refused: the handle is read-only (${sqlite}); write through a store opened with ` +
        'SqliteGraphStore.openMain — a child writes to its own temp store',
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new MemoryError(
      `${what} failed: the database is locked by another connection (${sqlite}); nothing of this ` +
        'call was written and earlier commits are intact; retry once the other writer has committed',
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new MemoryError(`${what} failed: cannot open the file (${sqlite}); check the path and its directory`, {
      cause: err,
    });
  }
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    return new MemoryError(
      `${what} failed: the file is not a usable SQLite database (${sqlite}); move it away and let ` +
        'openMain create a new one, or restore a backup',
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_FULL') || code.startsWith('SQLITE_IOERR')) {
    return new MemoryError(`${what} failed: disk or I/O error (${sqlite}); free space or check the disk`, {
      cause: err,
    });
  }
  return err;
}
