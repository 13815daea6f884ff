import { type BuildExtraConfigColumns, sql } from 'drizzle-orm';
import {
  index,
  type PgColumn,
  type PgColumnBuilderBase,
  type PgTableExtraConfigValue,
  pgTable,
  primaryKey,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { type DialectMapping, mapTable, mapTables } from '../../schema/mapping';
import type { Columns, PgBuilders, Table } from '../../schema/table';

/** The drizzle table a declaration of `src/db/schema/` maps to: what `pgTable` gives. */
export type PgTable<N extends string, C extends Columns> = ReturnType<
  typeof pgTable<N, PgBuilders<C>>
>;

const POSTGRES: DialectMapping<PgColumn, PgTableExtraConfigValue> = {
  dialect: 'pg',
  now: sql`(floor(extract(epoch from clock_timestamp()) * 1000)::bigint)`,
  // A unique constraint, not only an index: a foreign key may reference the column.
  uniqueAsIndex: false,
  table: (name, builders, extras) =>
    pgTable(name, builders as Record<string, PgColumnBuilderBase>, extras),
  index: (name, unique, [first, ...rest], where) => {
    const built = (unique ? uniqueIndex : index)(name).on(first, ...rest);
    return where ? built.where(where) : built;
  },
  primaryKey: (columns, name) => primaryKey(name ? { name, columns } : { columns }),
  only: (declared, self) =>
    declared.only.pg?.(self as BuildExtraConfigColumns<string, PgBuilders<Columns>, 'pg'>) ?? [],
};

export const pgTableOf = <N extends string, C extends Columns>(declared: Table<N, C>) =>
  mapTable(declared, POSTGRES) as unknown as PgTable<N, C>;

/** Every table of a module of declarations, under the names it exports them by. */
export const pgTablesOf = <S extends Record<string, unknown>>(declarations: S) =>
  mapTables(declarations, pgTableOf) as {
    [K in keyof S as S[K] extends Table ? K : never]: S[K] extends Table<infer N, infer C>
      ? PgTable<N, C>
      : never;
  };
