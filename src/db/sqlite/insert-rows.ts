import type { Database, Statement } from 'bun:sqlite';
import { getTableName, type Table } from 'drizzle-orm';
import { type ColumnKey, columnsOf } from '@/db/columns';
import type { Bindings } from './where';

/** Rows per multi-row INSERT at most: one statement call instead of 64 (seeding writes millions). */
const ROWS_PER_INSERT = 64;

/**
 * The prepared multi-row statements of each connection, by statement head
 * and then by row count (1 to `ROWS_PER_INSERT`). Prepared here rather than
 * through `Database.query`: Bun keeps only 20 texts there
 * (`Database.MAX_QUERY_CACHE_SIZE`), and the row counts of one group commit
 * (properties, units, features, events) are more than that, so creates kept
 * compiling them again (7 % of the samples in a profile of creates,
 * docs/performance.md). Bounded by construction: the heads are module
 * constants (four tables), each with at most 64 statements.
 */
const prepared = new WeakMap<Database, Map<string, Statement<unknown, Bindings>[]>>();

/** The statement inserting `rows` rows with `head` and `values`, compiled on first use. */
function insertStatement(
  client: Database,
  head: string,
  values: string,
  rows: number,
): Statement<unknown, Bindings> {
  let byHead = prepared.get(client);
  if (!byHead) {
    byHead = new Map();
    prepared.set(client, byHead);
  }
  let byRows = byHead.get(head);
  if (!byRows) {
    byRows = [];
    byHead.set(head, byRows);
  }
  let statement = byRows[rows];
  if (!statement) {
    statement = client.prepare<unknown, Bindings>(head + Array(rows).fill(values).join(', '));
    byRows[rows] = statement;
  }
  return statement;
}

/**
 * Inserts `params` (flat, `width` values a row, in row order) with `head`
 * followed by one `values` tuple per row: 64 rows a statement, the rest in
 * one statement of as many rows, so a create's 1–30 units are one
 * statement, each compiled once per connection (`insertStatement`). Rows are
 * inserted in the order given, so an INTEGER PRIMARY KEY assigned by SQLite
 * follows it. A multi-row statement matters beyond the call count: the
 * address index (FTS5, kept by a trigger) writes its pending terms out at
 * every statement that follows, so one statement for a batch of properties
 * writes one index segment, not one each.
 */
export function insertRows(
  client: Database,
  head: string,
  values: string,
  width: number,
  params: Bindings,
): void {
  for (let at = 0; at < params.length; ) {
    const rows = Math.min(ROWS_PER_INSERT, (params.length - at) / width);
    const size = rows * width;
    insertStatement(client, head, values, rows).run(...params.slice(at, at + size));
    at += size;
  }
}

/**
 * A multi-row insert of `table`'s rows as the schema types them (every
 * column but `omitted`, booleans stored as 0/1), its column list made
 * once, here, from the drizzle table.
 */
export function rowInserter<T extends Table, K extends ColumnKey<T>>(
  table: T,
  omitted: readonly K[],
): (client: Database, rows: readonly Omit<T['$inferSelect'], K>[]) => void {
  const columns = columnsOf(table, omitted);
  const keys: string[] = columns.map(({ key }) => key);
  const head = `INSERT INTO ${getTableName(table)} (${columns.map(({ name }) => name).join(', ')}) VALUES `;
  const values = `(${keys.map(() => '?').join(', ')})`;
  return (client, rows) => {
    const params: Bindings = [];
    for (const row of rows as readonly Record<string, Bindings[number] | boolean>[]) {
      for (const key of keys) {
        const value = row[key] ?? null;
        params.push(typeof value === 'boolean' ? Number(value) : value);
      }
    }
    insertRows(client, head, values, keys.length, params);
  };
}
