import { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { SQL } from 'bun';
import { migrationsFolder } from '../client';
import { pendingMigrations, readMigrations } from '../migrate';
import { copyLine, type PgColumnType } from './copy-text';
import { migratePostgres } from './migrate';

export type CopyErrorCode =
  | 'source_missing'
  | 'source_outdated'
  | 'target_unreachable'
  | 'target_not_empty'
  | 'schema_mismatch'
  | 'copy_failed'
  | 'count_mismatch';

/** Why a copy did not happen; the target holds none of the source's rows. */
export class CopyError extends Error {
  override readonly name = 'CopyError';
  constructor(
    readonly code: CopyErrorCode,
    message: string,
    /** The per-table counts, when the copy got as far as counting. */
    readonly counts: TableCount[] = [],
  ) {
    super(message);
  }
}

export interface TableCount {
  table: string;
  sqlite: number;
  postgres: number;
}

export interface CopyOptions {
  /** Rows sent to PostgreSQL per write of the COPY stream. */
  batchRows?: number;
  /** Told when a step is done (a table copied, the indexes rebuilt) and the milliseconds it took. */
  onStep?: (step: string, ms: number) => void;
}

/** The tables whose counts differ (empty: the copy is complete). */
export const mismatches = (counts: readonly TableCount[]): TableCount[] =>
  counts.filter((count) => count.sqlite !== count.postgres);

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

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

async function connect(url: string): Promise<SQL> {
  const target = new SQL(url, { max: 1, connectionTimeout: 5 });
  try {
    await target`SELECT 1`;
    return target;
  } catch (error) {
    await target.close({ timeout: 0 });
    const { host, pathname } = new URL(url);
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new CopyError('target_unreachable', `cannot connect to ${host}${pathname}: ${reason}`);
  }
}

/**
 * Copies every table of the SQLite file at `sqlitePath` into the PostgreSQL
 * database at `url` (migrated first with `migratePostgres`), which must hold
 * no rows. One PostgreSQL transaction does it all — COPY per table in batches
 * with the foreign keys and secondary indexes rebuilt after the load, the
 * user triggers off so property_counts and
 * cache_changes arrive as SQLite has them instead of being counted again,
 * identity sequences moved past the copied ids (and past SQLite's
 * AUTOINCREMENT high-water marks, so an id is never reused) — then compares
 * the row counts of every table. Any failure or difference rolls it all back.
 * The SQLite side is read in one read transaction: a consistent snapshot even
 * while a server writes.
 */
export async function copySqliteToPostgres(
  sqlitePath: string,
  url: string,
  options: CopyOptions = {},
): Promise<TableCount[]> {
  const batchRows = options.batchRows ?? 5000;
  if (!existsSync(sqlitePath)) throw new CopyError('source_missing', `${sqlitePath}: no such file`);
  const source = new Database(sqlitePath, { readonly: true });
  try {
    const behind = pendingMigrations(source, readMigrations(migrationsFolder));
    if (behind.length > 0) {
      throw new CopyError(
        'source_outdated',
        `${sqlitePath} lacks ${behind.length} migration(s) (${behind[0]!.tag}…); start the service on it once to bring it up to date`,
      );
    }
    const target = await connect(url);
    try {
      await migratePostgres(url);
      return await copyInto(source, target, { ...options, batchRows });
    } finally {
      await target.close();
    }
  } finally {
    source.close();
  }
}

async function copyInto(
  source: Database,
  target: SQL,
  options: CopyOptions & { batchRows: number },
): Promise<TableCount[]> {
  const tables = sqliteTables(source);
  const pgColumns = await target<{ table_name: string; column_name: string; data_type: string }[]>`
    SELECT table_name, column_name, data_type FROM information_schema.columns
    WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  const pgTables = [...new Set(pgColumns.map((row) => row.table_name))];
  const missing = tables.filter((table) => !pgTables.includes(table));
  const extra = pgTables.filter((table) => !tables.includes(table));
  if (missing.length > 0 || extra.length > 0) {
    throw new CopyError(
      'schema_mismatch',
      `tables differ: only in SQLite [${missing.join(', ')}], only in PostgreSQL [${extra.join(', ')}]`,
    );
  }
  const columnsOf = new Map<string, { name: string; type: PgColumnType }[]>();
  for (const table of tables) {
    const sqliteNames = source
      .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .map((row) => row.name);
    const columns = pgColumns
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
  const identities = await target<{ table_name: string; column_name: string }[]>`
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

  source.run('BEGIN');
  try {
    return await target.begin(async (tx) => {
      for (const table of tables) {
        const [row] = await tx.unsafe<{ found: boolean }[]>(
          `SELECT EXISTS (SELECT 1 FROM ${quoted(table)}) AS found`,
        );
        if (row?.found) {
          throw new CopyError(
            'target_not_empty',
            `the target database is not empty (${table} has rows); copy into an empty database`,
          );
        }
      }
      for (const table of tables)
        await tx.unsafe(`ALTER TABLE ${quoted(table)} DISABLE TRIGGER USER`);
      const rebuild = await withoutSecondaryStructures(tx);
      for (const table of tables) {
        const started = performance.now();
        const rows = await copyTable(source, tx, table, columnsOf.get(table)!, options.batchRows);
        options.onStep?.(
          `${table}: ${rows.toLocaleString('en-US')} rows copied`,
          performance.now() - started,
        );
      }
      const started = performance.now();
      await rebuild();
      options.onStep?.('indexes and foreign keys rebuilt', performance.now() - started);
      for (const { table_name: table, column_name: column } of identities) {
        const [max] = await tx.unsafe<{ max: string | null }[]>(
          `SELECT max(${quoted(column)}) AS max FROM ${quoted(table)}`,
        );
        const next = Math.max(Number(max?.max ?? 0), highWater.get(table) ?? 0);
        if (next > 0) {
          await tx`SELECT setval(pg_get_serial_sequence(${quoted(table)}, ${column}), ${next})`;
        }
      }
      for (const table of tables)
        await tx.unsafe(`ALTER TABLE ${quoted(table)} ENABLE TRIGGER USER`);
      // Statistics now, so the first queries on the copy are planned from them.
      for (const table of tables) await tx.unsafe(`ANALYZE ${quoted(table)}`);
      const counts: TableCount[] = [];
      for (const table of tables) {
        const { n } = source
          .query<{ n: number }, []>(`SELECT count(*) AS n FROM ${quoted(table)}`)
          .get()!;
        const [pg] = await tx.unsafe<{ n: string }[]>(`SELECT count(*) AS n FROM ${quoted(table)}`);
        counts.push({ table, sqlite: n, postgres: Number(pg?.n ?? 0) });
      }
      const differing = mismatches(counts);
      if (differing.length > 0) {
        throw new CopyError(
          'count_mismatch',
          `row counts differ in ${differing.map((count) => count.table).join(', ')}; nothing was kept`,
          counts,
        );
      }
      return counts;
    });
  } catch (error) {
    if (error instanceof CopyError) throw error;
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new CopyError('copy_failed', `copy failed, nothing was kept: ${reason}`);
  } finally {
    source.run('COMMIT');
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
async function withoutSecondaryStructures(tx: SQL): Promise<() => Promise<void>> {
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

/** Streams one table through `COPY … FROM STDIN`, `batchRows` rows per write. */
async function copyTable(
  source: Database,
  tx: SQL,
  table: string,
  columns: readonly { name: string; type: PgColumnType }[],
  batchRows: number,
): Promise<number> {
  const list = columns.map((column) => quoted(column.name)).join(', ');
  const query = tx.unsafe(`COPY ${quoted(table)} (${list}) FROM STDIN`);
  const writer = query.writable().getWriter();
  const types = columns.map((column) => column.type);
  let batch: string[] = [];
  try {
    const names = columns.map((column) => column.name);
    // Row by row: a table of millions of rows is never held in memory whole.
    const rows = source
      .query<Record<string, unknown>, []>(`SELECT ${list} FROM ${quoted(table)}`)
      .iterate();
    for (const row of rows) {
      batch.push(
        copyLine(
          names.map((name) => row[name]),
          types,
        ),
      );
      if (batch.length >= batchRows) {
        await writer.write(batch.join(''));
        batch = [];
      }
    }
    if (batch.length > 0) await writer.write(batch.join(''));
    await writer.close();
  } catch (error) {
    await writer.abort(error).catch(() => {});
    throw error;
  }
  const done = await query;
  return done.count;
}
