import { expect, test } from 'bun:test';
import { readFileSync, statSync } from 'node:fs';
import { ReadCache } from '@/db/read-cache';
import { openDatabase } from '@/db/sqlite/client';
import { createTestApp } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

/** POSIX locks this process holds on `path` (Linux's /proc/locks). */
function locksHeldOn(path: string): number {
  const inode = statSync(path).ino;
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[4] === String(process.pid) && fields[5]?.endsWith(`:${inode}`);
    }).length;
}

sqliteOnly.describe(
  'the WAL index of the SQLite file',
  'the change feed maps the wal-index without dropping SQLite locks',
  () => {
    // Mapping a file opens and closes a descriptor of it, which drops every POSIX
    // lock the process holds on that file. Without its lock on the -shm file, the
    // next process to open the database rebuilds the wal-index while this one
    // uses it (a server crashed with SIGBUS that way).
    test('a built service still holds its lock on the -shm file', () => {
      const ctx = createTestApp();
      ctx.db.$client.query('SELECT 1 FROM cache_changes LIMIT 1').get();
      expect(ctx.deps.readCache.enabled).toBe(true);
      expect(locksHeldOn(`${ctx.config.databasePath}-shm`)).toBeGreaterThan(0);
    });

    test('a second connection to the same file in this process keeps the first one locked', () => {
      const ctx = createTestApp();
      const second = openDatabase(ctx.config.databasePath);
      new ReadCache({ db: second });
      second.$client.query('SELECT 1').get();
      expect(locksHeldOn(`${ctx.config.databasePath}-shm`)).toBeGreaterThan(0);
      second.$client.close();
    });
  },
);
