import { type Column, getTableColumns, type Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';

/** The keys of `table`'s columns as the schema names them (camelCase). */
export type ColumnKey<T extends Table> = keyof T['_']['columns'] & string;

/** A key in camelCase as `casing: 'snake_case'` names its column (`addressLine1` → `address_line1`). */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/**
 * Every column of a drizzle table but `omitted`, in the schema's order: its
 * key, its SQL name and the column itself. For column lists written once,
 * at module load, from the table (SQL text, not a query builder, on the
 * hot paths).
 */
export function columnsOf<T extends Table, K extends ColumnKey<T>>(
  table: T,
  omitted: readonly K[],
): { key: Exclude<ColumnKey<T>, K>; name: string; column: Column }[] {
  return Object.entries(getTableColumns(table))
    .filter(([key]) => !omitted.includes(key as K))
    .map(([key, column]) => ({
      key: key as Exclude<ColumnKey<T>, K>,
      // The schema names columns by their keys; `casing: 'snake_case'` writes them so.
      name: column.keyAsName ? toSnakeCase(column.name) : column.name,
      column,
    }));
}
