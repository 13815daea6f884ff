import { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { SQL } from 'bun';
import { readMigrations } from '@/db/migrations';
import { migrationsFolder } from '../sqlite/client';
import { pendingMigrations } from '../sqlite/migrate';
import { whereOf } from './connection';
import { CopyError, mismatches, type TableCount } from './copy-error';
import { continueSequences, quoted, tablesToCopy, withoutSecondaryStructures } from './copy-schema';
import { copyLine, type PgColumnType } from './copy-text';
import { migratePostgres } from './migrate';

export { CopyError, type CopyErrorCode, mismatches, type TableCount } from './copy-error';

export interface CopyOptions {
  /** Rows sent to PostgreSQL per write of the COPY stream. */
  batchRows?: number;
  /** Told when a step is done (a table copied, the indexes rebuilt) and the milliseconds it took. */
  onStep?: (step: string, ms: number) => void;
}

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0];

/** The SQLite file, read-only, once it is known to be this service's database and up to date. */
function openSource(path: string): Database {
  let source: Database | undefined;
  let behind: string[];
  try {
    source = new Database(path, { readonly: true });
    // A lock held for a moment (a server's checkpoint, the last process's
    // close) is waited for, as the service's own connections do.
    source.exec('PRAGMA busy_timeout = 5000');
    behind = pendingMigrations(source, readMigrations(migrationsFolder)).map((m) => m.tag);
  } catch (error) {
    source?.close();
    throw new CopyError(
      'source_unreadable',
      `${path}: not a readable SQLite database (${firstLine(error)})`,
    );
  }
  if (behind.length > 0) {
    source.close();
    throw new CopyError(
      'source_outdated',
      `${path} lacks ${behind.length} migration(s) (${behind[0]}…); start the service on it once to bring it up to date`,
    );
  }
  return source;
}

async function connect(url: string): Promise<SQL> {
  const target = new SQL(url, { max: 1, connectionTimeout: 5 });
  try {
    await target`SELECT 1`;
    return target;
  } catch (error) {
    await target.close({ timeout: 0 });
    throw new CopyError(
      'target_unreachable',
      `cannot connect to ${whereOf(url)}: ${firstLine(error)}`,
    );
  }
}

/**
 * Copies every table of the SQLite file at `sqlitePath` into the PostgreSQL
 * database at `url` (migrated first with `migratePostgres`), which must hold
 * no rows. One PostgreSQL transaction does it all — COPY per table in batches
 * with the foreign keys and secondary indexes rebuilt after the load, the
 * user triggers off so property_counts and cache_changes arrive as SQLite has
 * them instead of being counted again, identity sequences moved past the copied ids (and past SQLite's
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
  const source = openSource(sqlitePath);
  try {
    const target = await connect(url);
    try {
      await migratePostgres(url).catch((error: unknown) => {
        throw new CopyError(
          'target_migration_failed',
          `migrating the target failed: ${firstLine(error)}`,
        );
      });
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
  const columnsOf = await tablesToCopy(source, target);
  const tables = [...columnsOf.keys()];
  source.run('BEGIN');
  let counts: TableCount[];
  try {
    counts = await target.begin(async (tx) => {
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
      await continueSequences(source, tx);
      for (const table of tables)
        await tx.unsafe(`ALTER TABLE ${quoted(table)} ENABLE TRIGGER USER`);
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
    throw new CopyError('copy_failed', `copy failed, nothing was kept: ${firstLine(error)}`);
  } finally {
    source.run('COMMIT');
  }
  // After the commit (VACUUM runs outside a transaction): statistics for the
  // planner, and every copied page marked all-visible, so totals counted
  // over an index (the features filter's) are index-only scans from the
  // first request, not after autovacuum's first pass over millions of rows.
  const started = performance.now();
  try {
    for (const table of tables) await target.unsafe(`VACUUM (ANALYZE) ${quoted(table)}`);
    options.onStep?.('vacuumed and analysed', performance.now() - started);
  } catch (error) {
    options.onStep?.(
      `VACUUM (ANALYZE) failed (${firstLine(error)}); the copy is complete: run it by hand`,
      performance.now() - started,
    );
  }
  return counts;
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
