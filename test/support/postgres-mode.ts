import { describe, test } from 'bun:test';
import { join } from 'node:path';
import type { SQL } from 'bun';
import { openPostgres } from '@/db/pg/connection';
import { dropTestDatabase, postgresAvailable, testDatabaseName, testDatabaseUrl } from './postgres';

/**
 * `TEST_DATABASE=postgres` (`npm run test:postgres`): every `createTestApp`
 * serves from a PostgreSQL database of its own instead of a SQLite file, so
 * the whole quick suite runs once more on PostgreSQL (docs/testing.md).
 */
export const onPostgres = process.env.TEST_DATABASE === 'postgres';

if (onPostgres && !postgresAvailable) {
  throw new Error('TEST_DATABASE=postgres, but no PostgreSQL answers (TEST_POSTGRES_URL)');
}

/**
 * A describe or test that concerns SQLite alone (its file, pragmas, WAL,
 * backups, the read cache): skipped on PostgreSQL, with `reason` in its title.
 */
export const sqliteOnly = {
  describe(reason: string, title: string, body: () => void): void {
    describe.skipIf(onPostgres)(sqliteOnlyTitle(reason, title), body);
  },
  test(reason: string, title: string, body: () => unknown, timeout?: number): void {
    test.skipIf(onPostgres)(sqliteOnlyTitle(reason, title), body as () => void, timeout);
  },
};

/** Why a domain's `(SQLite)` store run is skipped: its `(PostgreSQL)` twin runs the same tests. */
export const SQLITE_STORE_RUN = 'the SQLite store run of a suite whose PostgreSQL run follows';

export const READ_CACHE =
  "the read cache seen through SQLite's handle (on PostgreSQL: test/db/pg-change-feed, test/listings/pg-read-cache)";
export const ANSWERS_WITHOUT_PROMISE = 'SQLite answers without a promise; PostgreSQL always awaits';
export const BACKUPS_COPY_THE_FILE = 'a backup is a copy of the SQLite file';

const sqliteOnlyTitle = (reason: string, title: string) =>
  onPostgres ? `${title} (SQLite only: ${reason})` : title;

/** Databases made for each test file, with the pools opened on them. */
interface FileDatabases {
  template: string;
  spare: string[];
  made: string[];
  pools: SQL[];
}

const byFile = new Map<string, FileDatabases>();
const CLONES_PER_CALL = 3;
const clonesScript = join(import.meta.dir, 'postgres-clones.ts');

/**
 * Copies of one migrated template per test file. `createTestApp` is
 * synchronous, so the databases come from a child process it waits for,
 * a few at a time.
 */
function takeDatabase(file: string): string {
  let databases = byFile.get(file);
  if (!databases) {
    databases = { template: testDatabaseName(), spare: [], made: [], pools: [] };
    byFile.set(file, databases);
  }
  if (databases.spare.length === 0) {
    const child = Bun.spawnSync(
      [process.execPath, clonesScript, databases.template, String(CLONES_PER_CALL)],
      { env: process.env, stderr: 'pipe' },
    );
    if (!child.success) {
      throw new Error(`could not make test databases: ${child.stderr.toString()}`);
    }
    const names = JSON.parse(child.stdout.toString()) as string[];
    databases.spare.push(...names);
    databases.made.push(...names);
  }
  return databases.spare.shift() as string;
}

/** A pool on a fresh migrated database for a test app of the current file. */
export function postgresForTestApp(): { pool: SQL; url: string } {
  const url = testDatabaseUrl(takeDatabase(Bun.main));
  return { pool: poolOn(url), url };
}

/** Another pool on the database at `url`, as a restarted server opens. */
export function poolOn(url: string): SQL {
  // Small pools that let go of idle connections soon: a file may build a
  // hundred apps, and PostgreSQL allows only so many connections.
  const pool = openPostgres(url, { max: 4, idleTimeout: 1 });
  byFile.get(Bun.main)?.pools.push(pool);
  return pool;
}

/**
 * Closes the pools and drops the databases of every test file but `keep`
 * (the one running): preloaded, so a file's databases go once it is done.
 */
export async function dropTestAppDatabases(keep?: string): Promise<void> {
  for (const [file, databases] of byFile) {
    if (file === keep) continue;
    byFile.delete(file);
    await Promise.all(databases.pools.map((pool) => pool.close({ timeout: 0 })));
    await Promise.all(databases.made.map(dropTestDatabase));
    // The template last: nothing may copy it while it goes.
    await dropTestDatabase(databases.template);
  }
}
