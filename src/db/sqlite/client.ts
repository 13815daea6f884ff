import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import { readMigrations } from '@/db/migrations';
import { ownerOnly } from './file-mode';
import { applyMigrations } from './migrate';
import * as schema from './schema';
import { mapWalIndex, useWalIndex } from './wal-index';

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/** A transaction handle; services accept `Db | Tx` so callers can compose them. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export const migrationsFolder = join(import.meta.dir, '..', '..', '..', 'migrations');

/** A database in a file of its own (not `:memory:`, not a `file:` URI): one with a WAL and its -shm beside it. */
export const isPlainFile = (path: string): boolean =>
  path !== ':memory:' && !path.startsWith('file:');

/**
 * Opens (creating the folder when missing) and tunes the SQLite file:
 * WAL so readers never block the writer, synchronous=NORMAL which in WAL mode
 * keeps every committed transaction across a process crash, foreign keys on,
 * and a busy timeout so a second writer waits instead of failing.
 * `pageCacheKib`: SQLite's page cache (the server passes its share of
 * MEMORY_BUDGET_MB, src/config/memory-budget.ts).
 */
export function openDatabase(path: string, { pageCacheKib = 48 * 1024 } = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = ownerOnly(path, () => {
    // Before SQLite opens the file and takes its locks (src/db/sqlite/wal-index.ts).
    const walIndex = isPlainFile(path) ? mapWalIndex(path) : undefined;
    const opened = new Database(path, { create: true, strict: true });
    // First: a lock held for a moment by another connection (one closing,
    // a checkpoint) is waited for, already while the journal mode is set.
    opened.exec('PRAGMA busy_timeout = 5000');
    opened.exec('PRAGMA journal_mode = WAL');
    useWalIndex(opened, walIndex);
    return opened;
  });
  sqlite.exec('PRAGMA synchronous = NORMAL');
  sqlite.exec('PRAGMA foreign_keys = ON');
  sqlite.exec('PRAGMA temp_store = MEMORY');
  // Negative: in KiB. A bigger cache makes reads by id spread over a large
  // table cheaper (docs/performance.md, Memory).
  sqlite.exec(`PRAGMA cache_size = -${Math.max(1, Math.floor(pageCacheKib))}`);
  // The WAL is checkpointed every 1000 pages (the default); after a burst that
  // outgrew that (a checkpoint held back by a long read), the file is cut
  // back to 64 MiB at the next reset instead of keeping its peak size.
  sqlite.exec('PRAGMA journal_size_limit = 67108864');
  return drizzle({ client: sqlite, schema, casing: 'snake_case' }) as Db;
}

export { MIGRATIONS_TABLE } from './migrate';

/** Applies the pending migrations of `folder` (all or none); answers the tags applied. */
export function migrateDatabase(db: Db, folder = migrationsFolder): string[] {
  return applyMigrations(db.$client, readMigrations(folder));
}

export function isDatabaseHealthy(db: Db): boolean {
  try {
    return db.$client.query('SELECT 1 AS ok').get() !== null;
  } catch {
    return false;
  }
}
