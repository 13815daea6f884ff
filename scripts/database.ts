/**
 * The database of an operator command, chosen as the server chooses it:
 * PostgreSQL at DATABASE_URL when it is set (checked, then migrated under
 * the advisory lock), otherwise SQLite at DATABASE_PATH (migrated). The
 * commands read and write through the stores the server uses, so an
 * account, a page or the demo data land where the server looks for them
 * (docs/postgresql.md).
 */
import type { SQL } from 'bun';
import { parseDatabaseSettings } from '@/config';
import { openPostgres, whereOf } from '@/db/pg/connection';
import { preparePostgres } from '@/db/pg/migrate';
import { ReadCache } from '@/db/read-cache';
import { type Db, migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { postgresStores, type Stores, sqliteStores } from '@/stores';
import { configOrFail, fail } from './cli';

export interface ScriptDatabase {
  stores: Stores;
  /** Where the rows are, for messages: the SQLite path, or `host:port/database` (never the password). */
  where: string;
  /** The rows of one of the service's tables (the demo's summary). */
  countRows(table: string): Promise<number>;
  /** Closes the file or the pool; the command then exits on its own. */
  close(): Promise<void>;
  /** Closes, then prints `message` on stderr and exits 1. */
  fail(message: string): Promise<never>;
}

/** A command reads nothing twice, so nothing is remembered. */
export const sqliteScriptStores = (db: Db): Stores =>
  sqliteStores(db, new ReadCache({ enabled: false }));

/** DATABASE_URL when set (it is validated with the rest of the configuration). */
export function databaseUrlOf(env: Record<string, string | undefined>): string | undefined {
  return configOrFail(() => parseDatabaseSettings(env).databaseUrl);
}

function withFail(database: Omit<ScriptDatabase, 'fail'>): ScriptDatabase {
  return {
    ...database,
    async fail(message) {
      await database.close();
      return fail(message);
    },
  };
}

function openSqliteStores(path: string): ScriptDatabase {
  const db = openDatabase(path);
  migrateDatabase(db);
  return withFail({
    stores: sqliteScriptStores(db),
    where: path,
    countRows: async (table) =>
      db.$client.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n,
    close: async () => db.$client.close(),
  });
}

/** As the server starts: one line naming DATABASE_URL and exit 1 when it cannot be used. */
async function openPostgresStores(url: string): Promise<ScriptDatabase> {
  const prepared = await preparePostgres(url);
  if ('problem' in prepared) fail(`DATABASE_URL: ${prepared.problem}`);
  // One command, one operation at a time.
  const client: SQL = openPostgres(url, { max: 2 });
  return withFail({
    stores: postgresStores(client),
    where: whereOf(url),
    async countRows(table) {
      const [row] = await client.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table}`);
      return row!.n;
    },
    close: () => client.close({ timeout: 5 }),
  });
}

/** The stores of DATABASE_URL when it is set, else of SQLite at `databasePath`; migrated. */
export async function openStores(
  databasePath: string,
  databaseUrl = databaseUrlOf(process.env),
): Promise<ScriptDatabase> {
  return databaseUrl === undefined
    ? openSqliteStores(databasePath)
    : openPostgresStores(databaseUrl);
}

/**
 * backup and restore copy the SQLite file at DATABASE_PATH: with
 * DATABASE_URL set the rows are in PostgreSQL, whose own tools copy them.
 */
export function refuseOnPostgres(command: 'backup' | 'restore'): void {
  if (databaseUrlOf(process.env) === undefined) return;
  const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
  fail(
    `${command}: DATABASE_URL is set, so the data is in PostgreSQL, not in the SQLite file this command copies; use ${tool}`,
  );
}
