import type { Database } from 'bun:sqlite';
import type { SQL } from 'bun';
import { CopyError } from './copy-error';
import type { PgColumnType } from './copy-text';

/** A name as an SQL identifier. */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export type CopiedColumns = Map<string, { name: string; type: PgColumnType }[]>;

/**
 * What only PostgreSQL has: the change feed's transaction ids and pruning
 * mark (migrations-pg/0005), filled by PostgreSQL itself, never copied.
 */
const POSTGRES_ONLY_TABLES = new Set(['cache_changes_pruned']);
const POSTGRES_ONLY_COLUMNS = new Set(['cache_changes.xid', 'property_sort_changes.xid']);

/** The SQLite tables holding data: not SQLite's own, not the migrator's, not FTS5 and its shadow tables. */
function sqliteTables(source: Database): string[] {
  const rows = source
    .query<{ name: string; sql: string | null }, []>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name",
    )
    .all();
  const virtual = rows
    .filter((row) => row.sql?.startsWith('CREATE VIRTUAL TABLE'))
    .map((row) => row.name);
  return rows
    .map((row) => row.name)
    .filter(
      (name) =>
        !name.startsWith('sqlite_') &&
        name !== '__drizzle_migrations' &&
        !virtual.some((table) => name === table || name.startsWith(`${table}_`)),
    );
}

/**
 * The columns of every table to copy, typed as PostgreSQL has them; a table
 * or column on one side only is a CopyError (a source or target of another
 * version of the service).
 */
export async function tablesToCopy(source: Database, target: SQL): Promise<CopiedColumns> {
  const tables = sqliteTables(source);
  const pgColumns = await target<{ table_name: string; column_name: string; data_type: string }[]>`
    SELECT table_name, column_name, data_type FROM information_schema.columns
    WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  const copied = pgColumns.filter(
    (row) =>
      !POSTGRES_ONLY_TABLES.has(row.table_name) &&
      !POSTGRES_ONLY_COLUMNS.has(`${row.table_name}.${row.column_name}`),
  );
  const pgTables = [...new Set(copied.map((row) => row.table_name))];
  const missing = tables.filter((table) => !pgTables.includes(table));
  const extra = pgTables.filter((table) => !tables.includes(table));
  if (missing.length > 0 || extra.length > 0) {
    throw new CopyError(
      'schema_mismatch',
      `tables differ: only in SQLite [${missing.join(', ')}], only in PostgreSQL [${extra.join(', ')}]`,
    );
  }
  const columnsOf: CopiedColumns = new Map();
  for (const table of tables) {
    const sqliteNames = source
      .query<{ name: string }, [string]>('SELECT name FROM pragma_table_info(?)')
      .all(table)
      .map((row) => row.name);
    const columns = copied
      .filter((row) => row.table_name === table)
      .map((row) => ({ name: row.column_name, type: row.data_type as PgColumnType }));
    const names = columns.map((column) => column.name);
    if ([...sqliteNames].sort().join() !== [...names].sort().join()) {
      throw new CopyError(
        'schema_mismatch',
        `${table}: columns differ (SQLite ${sqliteNames.join(', ')}; PostgreSQL ${names.join(', ')})`,
      );
    }
    columnsOf.set(table, columns);
  }
  return columnsOf;
}

/**
 * Moves every identity sequence past the ids copied into its column and past
 * SQLite's AUTOINCREMENT high-water mark of the table (ids of pruned rows, as
 * events', are never handed out again).
 */
export async function continueSequences(source: Database, tx: SQL): Promise<void> {
  const identities = await tx<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND is_identity = 'YES'`;
  const highWater = new Map<string, number>(
    source.query("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get()
      ? source
          .query<{ name: string; seq: number }, []>('SELECT name, seq FROM sqlite_sequence')
          .all()
          .map((row) => [row.name, row.seq])
      : [],
  );
  for (const { table_name: table, column_name: column } of identities) {
    const [max] = await tx.unsafe<{ max: string | null }[]>(
      `SELECT max(${quoted(column)}) AS max FROM ${quoted(table)}`,
    );
    const next = Math.max(Number(max?.max ?? 0), highWater.get(table) ?? 0);
    if (next > 0) {
      await tx`SELECT setval(pg_get_serial_sequence(${quoted(table)}, ${column}), ${next})`;
    }
  }
}

/**
 * Drops the foreign keys and the indexes that back no constraint, answering
 * what puts them back. Loading millions of rows into a table with its
 * indexes (the trigram GIN above all) and a foreign-key check per row runs
 * at about a thousand rows a second; building each index once after the load
 * and checking each foreign key with one join is many times faster. It all
 * happens inside the copy's transaction: nobody sees the tables without them.
 */
export async function withoutSecondaryStructures(tx: SQL): Promise<() => Promise<void>> {
  const foreignKeys = await tx<{ table: string; name: string; definition: string }[]>`
    SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
    FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`;
  const indexes = await tx<{ name: string; definition: string }[]>`
    SELECT indexname AS name, indexdef AS definition FROM pg_indexes i
    WHERE schemaname = 'public' AND NOT EXISTS (
      SELECT 1 FROM pg_constraint c
      WHERE c.conname = i.indexname AND c.connamespace = 'public'::regnamespace)`;
  for (const fk of foreignKeys) {
    await tx.unsafe(`ALTER TABLE ${quoted(fk.table)} DROP CONSTRAINT ${quoted(fk.name)}`);
  }
  for (const index of indexes) await tx.unsafe(`DROP INDEX ${quoted(index.name)}`);
  return async () => {
    await tx.unsafe("SET LOCAL maintenance_work_mem = '256MB'");
    for (const index of indexes) await tx.unsafe(index.definition);
    for (const fk of foreignKeys) {
      await tx.unsafe(
        `ALTER TABLE ${quoted(fk.table)} ADD CONSTRAINT ${quoted(fk.name)} ${fk.definition}`,
      );
    }
  };
}
