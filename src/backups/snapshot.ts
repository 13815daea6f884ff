import { Database } from 'bun:sqlite';
import { closeSync, fsyncSync, openSync, readSync } from 'node:fs';
import { MIGRATIONS_TABLE } from '@/db/sqlite/client';

/** A backup or restore that cannot go on; its message is one line for an operator. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

const SQLITE_HEADER = 'SQLite format 3\0';

/** The first `length` bytes of a file (fewer when it is shorter). */
export function headOf(path: string, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

export const isGzip = (path: string) => {
  const head = headOf(path, 2);
  return head[0] === 0x1f && head[1] === 0x8b;
};

export const isSqlite = (path: string) => headOf(path, 16).toString('latin1') === SQLITE_HEADER;

/**
 * Checks an uncompressed snapshot before it is kept or restored: a SQLite
 * file, `PRAGMA integrity_check` answering ok, and the migrations table
 * present (a database of this service, not any SQLite file). `label` names
 * the file in the message.
 */
export function checkSnapshot(path: string, label = path): void {
  if (!isSqlite(path)) throw new BackupError(`${label} does not hold a SQLite database`);
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    const rows = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all();
    const verdict = rows.map((row) => row.integrity_check).join('; ');
    if (verdict !== 'ok') {
      throw new BackupError(`${label} failed the integrity check: ${verdict.slice(0, 200)}`);
    }
    const table = db
      .query<{ name: string }, [string]>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
      )
      .get(MIGRATIONS_TABLE);
    if (!table) {
      throw new BackupError(
        `${label} is not a database of this service (no ${MIGRATIONS_TABLE} table)`,
      );
    }
  } catch (error) {
    if (error instanceof BackupError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new BackupError(`${label} is not a readable SQLite database: ${reason}`);
  } finally {
    db?.close();
  }
}

/** Forces a file's bytes to disk before it is renamed into place. */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
