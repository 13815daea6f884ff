import { type BuildColumns, sql } from 'drizzle-orm';
import {
  index,
  primaryKey,
  type SQLiteColumn,
  type SQLiteColumnBuilderBase,
  type SQLiteTableExtraConfigValue,
  sqliteTable,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import { type DialectMapping, mapTable, mapTables } from '../../schema/mapping';
import type { Columns, SqliteBuilders, Table } from '../../schema/table';

/** The drizzle table a declaration of `src/db/schema/` maps to: what `sqliteTable` gives. */
export type SqliteTable<N extends string, C extends Columns> = ReturnType<
  typeof sqliteTable<N, SqliteBuilders<C>>
>;

const SQLITE: DialectMapping<SQLiteColumn, SQLiteTableExtraConfigValue> = {
  dialect: 'sqlite',
  now: sql`(unixepoch('subsec') * 1000)`,
  // SQLite adds a unique constraint only with its table: a unique index stands for it.
  uniqueAsIndex: true,
  table: (name, builders, extras) =>
    sqliteTable(name, builders as Record<string, SQLiteColumnBuilderBase>, extras),
  index: (name, unique, columns, where) => {
    const built = (unique ? uniqueIndex : index)(name).on(...columns);
    return where ? built.where(where) : built;
  },
  // Unnamed: drizzle's name for it is the one the migrations hold.
  primaryKey: (columns) => primaryKey({ columns }),
  only: (declared, self) =>
    declared.only.sqlite?.(self as BuildColumns<string, SqliteBuilders<Columns>, 'sqlite'>) ?? [],
};

export const sqliteTableOf = <N extends string, C extends Columns>(declared: Table<N, C>) =>
  mapTable(declared, SQLITE) as unknown as SqliteTable<N, C>;

/** Every table of a module of declarations, under the names it exports them by. */
export const sqliteTablesOf = <S extends Record<string, unknown>>(declarations: S) =>
  mapTables(declarations, sqliteTableOf) as {
    [K in keyof S as S[K] extends Table ? K : never]: S[K] extends Table<infer N, infer C>
      ? SqliteTable<N, C>
      : never;
  };
