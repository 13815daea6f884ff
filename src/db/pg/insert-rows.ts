import { type Column, getTableColumns, getTableName } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgTable } from 'drizzle-orm/pg-core';
import { bunClientOf, type PgTx } from './client';

/** A table's columns for an insert: property key, quoted SQL name, the column (its driver mapping). */
interface InsertColumn {
  key: string;
  name: string;
  column: Column;
}

const columnsByTable = new WeakMap<PgTable, { table: string; columns: InsertColumn[] }>();

function insertColumnsOf(table: PgTable) {
  let known = columnsByTable.get(table);
  if (!known) {
    const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({
      key,
      // The schema names columns by their keys; `casing: 'snake_case'` writes them so.
      name: `"${column.keyAsName ? toSnakeCase(column.name) : column.name}"`,
      column,
    }));
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
  const known = insertColumnsOf(table);
  const used = known.columns.filter(({ key }) =>
    rows.some((row) => (row as Record<string, unknown>)[key] !== undefined),
  );
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
