import type { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embedded } from '@/kernel/embedded';

/** drizzle's bookkeeping table: one row per applied migration. */
export const MIGRATIONS_TABLE = '__drizzle_migrations';

const BREAKPOINT = '--> statement-breakpoint';

/** One migration of `migrations/`, as drizzle-kit wrote it. */
export interface Migration {
  /** The file name without `.sql`, e.g. `0005_listings`. */
  tag: string;
  /** The journal's timestamp: the order, and what the bookkeeping table records. */
  when: number;
  statements: string[];
  /** sha256 of the SQL text, recorded beside `when` (as drizzle's migrator does). */
  hash: string;
}

interface Journal {
  entries: { tag: string; when: number }[];
}

/** The migrations of a journal, each SQL text given by `sqlOf(tag)`. */
export function migrationsOf(journalText: string, sqlOf: (tag: string) => string): Migration[] {
  const journal = JSON.parse(journalText) as Journal;
  return journal.entries.map(({ tag, when }) => {
    const text = sqlOf(tag);
    return {
      tag,
      when,
      statements: text.split(BREAKPOINT),
      hash: createHash('sha256').update(text).digest('hex'),
    };
  });
}

/** The migrations of a drizzle-kit folder (`meta/_journal.json` and `<tag>.sql`). */
export function readMigrations(folder: string): Migration[] {
  return migrationsOf(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'), (tag) =>
    readFileSync(join(folder, `${tag}.sql`), 'utf8'),
  );
}

/** The migrations the service runs: those built into a single-file binary, else `folder`'s. */
export function serviceMigrations(folder: string): Migration[] {
  const built = embedded.migrations;
  if (!built) return readMigrations(folder);
  return migrationsOf(built.journal, (tag) => {
    const text = built.sql[tag];
    if (text === undefined) throw new Error(`migration ${tag} is not in the build`);
    return text;
  });
}

/** A migration that failed; nothing of the run was kept. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    readonly tag: string,
    readonly reason: string,
  ) {
    super(`migration ${tag} failed: ${reason}`);
  }
}

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
