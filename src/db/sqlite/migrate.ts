import type { Database } from 'bun:sqlite';
import { type Migration, MigrationError } from '@/db/migrations';

/** drizzle's bookkeeping table: one row per applied migration. */
export const MIGRATIONS_TABLE = '__drizzle_migrations';

function ensureTable(client: Database): void {
  // drizzle's own definition, so databases migrated by either stay interchangeable.
  client.run(
    `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
  );
}

/**
 * The migrations not applied yet: as drizzle's migrator decides, those whose
 * journal time is after the newest one recorded.
 */
export function pendingMigrations(client: Database, migrations: readonly Migration[]): Migration[] {
  const table = client
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(MIGRATIONS_TABLE);
  if (!table) return [...migrations];
  const last = client
    .query<{ created_at: number }, []>(
      `SELECT created_at FROM "${MIGRATIONS_TABLE}" ORDER BY created_at DESC LIMIT 1`,
    )
    .get();
  return migrations.filter((migration) => !last || Number(last.created_at) < migration.when);
}

/**
 * Applies the pending migrations in ONE transaction: all of them or, when
 * one fails, none (the database is left exactly as it was) and a
 * MigrationError names the migration. Answers the tags applied.
 */
export function applyMigrations(client: Database, migrations: readonly Migration[]): string[] {
  ensureTable(client);
  const pending = pendingMigrations(client, migrations);
  if (pending.length === 0) return [];
  client.run('BEGIN IMMEDIATE');
  let current = '';
  try {
    for (const migration of pending) {
      current = migration.tag;
      for (const statement of migration.statements) {
        if (statement.trim() !== '') client.run(statement);
      }
      client.run(`INSERT INTO "${MIGRATIONS_TABLE}" ("hash", "created_at") VALUES (?, ?)`, [
        migration.hash,
        migration.when,
      ]);
    }
    client.run('COMMIT');
  } catch (error) {
    client.run('ROLLBACK');
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    throw new MigrationError(current, reason);
  }
  return pending.map((migration) => migration.tag);
}
