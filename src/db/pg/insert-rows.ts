import { type Column, getTableColumns, getTableName } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgTable } from 'drizzle-orm/pg-core';
import { bunClientOf, type PgTx } from './client';

/** A table's columns for an insert: property key, quoted SQL name, the column (its driver mapping). */
interface InsertColumn {
  key: string;
  name: string;
  /** The name unquoted: a key of the JSON rows (`jsonRowsOf`). */
  field: string;
  column: Column;
}

const columnsByTable = new WeakMap<PgTable, { table: string; columns: InsertColumn[] }>();

function insertColumnsOf(table: PgTable) {
  let known = columnsByTable.get(table);
  if (!known) {
    const columns = Object.entries(getTableColumns(table)).map(([key, column]) => {
      // The schema names columns by their keys; `casing: 'snake_case'` writes them so.
      const field = column.keyAsName ? toSnakeCase(column.name) : column.name;
      return { key, name: `"${field}"`, field, column };
    });
    known = { table: `"${getTableName(table)}"`, columns };
    columnsByTable.set(table, known);
  }
  return known;
}

/**
 * Inserts `rows` (drizzle insert values of `table`) inside `tx`, `chunk`
 * rows a statement, as drizzle's `insert().values()` would: the columns any
 * row sets, `DEFAULT` where a row leaves one out, each value through its
 * column's driver mapping. The statement text is written here in one pass:
 * drizzle builds an SQL chunk per value, which made most of a create's CPU.
 */
export async function insertRows(
  tx: PgTx,
  table: PgTable,
  rows: readonly object[],
  chunk: number,
): Promise<void> {
  if (rows.length === 0) return;
  const json = jsonInsertOf(table, rows);
  if (json) {
    await bunClientOf(tx).unsafe(json.text, [json.rows]);
    return;
  }
  const known = insertColumnsOf(table);
  const used = usedColumnsOf(known.columns, rows);
  const head = `INSERT INTO ${known.table} (${used.map(({ name }) => name).join(', ')}) VALUES `;
  const client = bunClientOf(tx);
  for (let start = 0; start < rows.length; start += chunk) {
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const row of rows.slice(start, start + chunk)) {
      const cells = used.map(({ key, column }) => {
        const value = (row as Record<string, unknown>)[key];
        if (value === undefined) return 'DEFAULT';
        params.push(value === null ? null : column.mapToDriverValue(value));
        return `$${params.length}`;
      });
      tuples.push(`(${cells.join(', ')})`);
    }
    await client.unsafe(head + tuples.join(', '), params);
  }
}

const usedColumnsOf = (columns: readonly InsertColumn[], rows: readonly object[]) =>
  columns.filter(({ key }) =>
    rows.some((row) => (row as Record<string, unknown>)[key] !== undefined),
  );

/** A driver value JSON carries exactly: text PostgreSQL takes, a finite number, a boolean, null. */
const carriesExactly = (value: unknown) =>
  value === null ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value)) ||
  (typeof value === 'string' && value.isWellFormed());

/**
 * An insert of `rows` whose text does not depend on how many there are:
 * the rows go as one JSON array parameter, each row an object of column
 * values (`json_populate_recordset` casts each to its column's type), read
 * in array order. A statement's text is what Bun prepares it by (once per
 * connection, kept among the 1,024 it used last): a `VALUES` list of
 * another length each time is a new text, which costs a round trip to
 * prepare before the one that runs it. Undefined when the rows cannot go
 * so: a row leaves out a column another sets (`DEFAULT` would be a NULL),
 * or a value JSON does not carry exactly (bytes, a lone surrogate).
 */
function jsonInsertOf(
  table: PgTable,
  rows: readonly object[],
  alongside = '',
): { text: string; rows: Record<string, unknown>[] } | undefined {
  const known = insertColumnsOf(table);
  const used = usedColumnsOf(known.columns, rows);
  const objects: Record<string, unknown>[] = [];
  for (const row of rows) {
    const object: Record<string, unknown> = {};
    for (const { key, field, column } of used) {
      const value = (row as Record<string, unknown>)[key];
      if (value === undefined) return undefined;
      const driven = value === null ? null : column.mapToDriverValue(value);
      if (!carriesExactly(driven)) return undefined;
      object[field] = driven;
    }
    objects.push(object);
  }
  const names = used.map(({ name }) => name).join(', ');
  const fields = used.map(({ name }) => `r.${name}`).join(', ');
  return {
    text: `INSERT INTO ${known.table} (${names}) SELECT ${fields} FROM ${alongside}json_populate_recordset(NULL::${known.table}, $1::json) WITH ORDINALITY AS r ORDER BY r.ordinality`,
    // Bun sends an array parameter as its JSON text.
    rows: objects,
  };
}

/**
 * `insertRows` holding the transaction-scoped advisory lock `lockKey`
 * before any row is inserted: where the rows go as JSON, one statement
 * whose rows are joined to the lock's acquisition, so no row (and no
 * identity value) is formed before the lock is held; else the lock, then
 * the inserts.
 */
export async function insertRowsLocked(
  tx: PgTx,
  table: PgTable,
  rows: readonly object[],
  chunk: number,
  lockKey: bigint,
): Promise<void> {
  if (rows.length === 0) return;
  const client = bunClientOf(tx);
  const json = jsonInsertOf(table, rows, '(SELECT pg_advisory_xact_lock($2)) AS locked, ');
  if (json) {
    await client.unsafe(json.text, [json.rows, lockKey]);
    return;
  }
  await client.unsafe('SELECT pg_advisory_xact_lock($1)', [lockKey]);
  await insertRows(tx, table, rows, chunk);
}

/** One table's rows of `insertAllReturning`. */
export interface InsertPart {
  table: PgTable;
  rows: readonly object[];
}

/**
 * Inserts the rows of every part inside `tx` in ONE statement, each part
 * as JSON (`jsonInsertOf`), and answers `returning` (a select list over
 * the first part's table) of the first part's rows: the later parts are
 * data-modifying CTEs beside it. Foreign keys and the tables' triggers are
 * checked and run at the end of the statement, so a part may refer to rows
 * of another. Undefined, having written nothing, when some part's rows
 * cannot go as JSON: the caller inserts them its usual way.
 */
export async function insertAllReturning<T>(
  tx: PgTx,
  [first, ...others]: readonly [InsertPart, ...InsertPart[]],
  returning: string,
): Promise<T[] | undefined> {
  const main = jsonInsertOf(first.table, first.rows);
  if (!main) return undefined;
  const ctes: string[] = [];
  const params: Record<string, unknown>[][] = [main.rows];
  for (const part of others) {
    if (part.rows.length === 0) continue;
    const insert = jsonInsertOf(part.table, part.rows);
    if (!insert) return undefined;
    params.push(insert.rows);
    ctes.push(
      `i${params.length} AS (${insert.text.replace('$1::json', `$${params.length}::json`)})`,
    );
  }
  const head = ctes.length > 0 ? `WITH ${ctes.join(', ')} ` : '';
  return (await bunClientOf(tx).unsafe(
    `${head}${main.text} RETURNING ${returning}`,
    params,
  )) as T[];
}
