import { join } from 'node:path';
import { SQL } from 'bun';
import { type Migration, MigrationError, readMigrations } from '@/db/migrations';
import { postgresProblem } from './connection';

/** The drizzle-kit migrations of the PostgreSQL schema (`npm run db:generate:pg`). */
export const pgMigrationsFolder = join(import.meta.dir, '..', '..', '..', 'migrations-pg');

/** drizzle's bookkeeping table for PostgreSQL, where its own migrator keeps it. */
export const PG_MIGRATIONS_TABLE = 'drizzle.__drizzle_migrations';

/**
 * The advisory lock every instance takes before migrating ('listings' in
 * ASCII). Advisory locks are per database, so instances of other services
 * sharing the server never wait on it.
 */
export const MIGRATION_LOCK_KEY = 0x6c697374696e6773n;

/**
 * Applies the pending migrations of `folder` to the database at `url`, all
 * in ONE transaction that first takes the migration advisory lock: instances
 * starting together queue on the lock, and each one after the first finds
 * nothing pending once it gets it. The lock is the transaction-scoped kind,
 * so COMMIT, ROLLBACK or a dropped connection releases it; no crashed
 * migrator can leave it held. A failure rolls every migration of the run
 * back and throws a MigrationError naming the one that failed. Answers the
 * tags applied.
 */
export async function migratePostgres(
  url: string,
  migrations: readonly Migration[] = readMigrations(pgMigrationsFolder),
): Promise<string[]> {
  const client = new SQL(url, { max: 1 });
  let current = '';
  try {
    return await client.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
      // drizzle's own definition, so a database migrated by either stays interchangeable.
      await tx.unsafe('CREATE SCHEMA IF NOT EXISTS drizzle');
      await tx.unsafe(
        `CREATE TABLE IF NOT EXISTS ${PG_MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
      );
      const [last] = await tx.unsafe<{ created_at: string }[]>(
        `SELECT created_at FROM ${PG_MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`,
      );
      // As drizzle's migrator decides: those whose journal time is after the newest recorded.
      const pending = migrations.filter((m) => !last || Number(last.created_at) < m.when);
      for (const migration of pending) {
        current = migration.tag;
        for (const statement of migration.statements) {
          if (statement.trim() !== '') await tx.unsafe(statement);
        }
        await tx.unsafe(`INSERT INTO ${PG_MIGRATIONS_TABLE} (hash, created_at) VALUES ($1, $2)`, [
          migration.hash,
          migration.when,
        ]);
      }
      return pending.map((migration) => migration.tag);
    });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    throw new MigrationError(current || '(bookkeeping)', reason);
  } finally {
    await client.close();
  }
}

/**
 * What a process does before it uses DATABASE_URL (the server at start,
 * the operator commands): connect, then apply pending migrations. Answers
 * the tags applied, or the one line saying why the database cannot be used
 * (the host and database, never the user or password).
 */
export async function preparePostgres(
  url: string,
): Promise<{ applied: string[] } | { problem: string }> {
  const problem = await postgresProblem(url);
  if (problem) return { problem };
  try {
    return { applied: await migratePostgres(url) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}
