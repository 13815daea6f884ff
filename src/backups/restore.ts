import { Database } from 'bun:sqlite';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { databaseFiles } from '@/db/sqlite/file-mode';
import { BackupError, checkSnapshot, isGzip, isSqlite, syncFile } from './snapshot';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Takes the database for this process alone, or refuses when another
 * process has it open. Every open connection to a WAL database keeps a
 * shared lock on it, so leaving WAL mode (which needs the only connection)
 * fails at once with SQLITE_BUSY while a server runs; it also folds the WAL
 * into the main file, which is then complete on its own. The exclusive
 * locking mode keeps the lock until `close()`.
 */
export function takeDatabase(path: string): Database {
  const db = new Database(path, { readwrite: true });
  try {
    db.exec('PRAGMA busy_timeout = 0');
    db.exec('PRAGMA journal_mode = DELETE');
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return db;
  } catch (error) {
    db.close();
    if (/locked|busy/i.test(messageOf(error))) {
      throw new BackupError(
        `${path} is in use by another process (is the server running? stop it first)`,
      );
    }
    throw new BackupError(`${path} cannot be opened: ${messageOf(error)}`);
  }
}

/** The backup's database, uncompressed into `target` and checked. */
async function unpack(file: string, target: string): Promise<void> {
  if (isGzip(file)) {
    try {
      await pipeline(
        createReadStream(file),
        createGunzip(),
        createWriteStream(target, { mode: 0o600, flags: 'wx' }),
      );
    } catch (error) {
      throw new BackupError(`${file} is not a valid gzip file: ${messageOf(error)}`);
    }
  } else if (isSqlite(file)) {
    copyFileSync(file, target);
  } else {
    throw new BackupError(`${file} is neither a backup (gzip) nor a SQLite database`);
  }
  checkSnapshot(target, file);
  syncFile(target);
}

export interface RestoreResult {
  /** Where the replaced database was kept, or undefined when there was none. */
  previous?: string;
}

/**
 * Replaces the database at `databasePath` with the one in `file` (a backup
 * or a plain SQLite file). Refuses while another process has the database
 * open, and refuses a file that is not a whole database of this service;
 * the replaced database is kept as `<database>.before-restore`. Pending
 * migrations are the caller's to apply (the restored file may be older).
 */
export async function restoreDatabase(file: string, databasePath: string): Promise<RestoreResult> {
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new BackupError(`${file}: no such file`);
  }
  mkdirSync(dirname(databasePath), { recursive: true });
  const candidate = join(
    dirname(databasePath),
    `.restore-${process.pid}-${randomBytes(4).toString('hex')}.db`,
  );
  let held: Database | undefined;
  try {
    // The file is checked before the database is touched: a refused file changes nothing.
    await unpack(file, candidate);
    if (existsSync(databasePath)) held = takeDatabase(databasePath);
    let previous: string | undefined;
    if (held) {
      previous = `${databasePath}.before-restore`;
      renameSync(databasePath, previous);
      chmodSync(previous, 0o600);
    }
    for (const leftover of databaseFiles(databasePath).slice(1)) {
      if (existsSync(leftover)) unlinkSync(leftover);
    }
    renameSync(candidate, databasePath);
    chmodSync(databasePath, 0o600);
    return { previous };
  } finally {
    held?.close();
    // The checks opened the candidate: a WAL-mode file (a replica's copy) leaves its -wal and -shm.
    for (const file of databaseFiles(candidate)) if (existsSync(file)) unlinkSync(file);
  }
}
