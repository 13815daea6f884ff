import type { BuildColumns, BuildExtraConfigColumns, SQL, SQLWrapper } from 'drizzle-orm';
import type { PgColumnBuilderBase, PgTableExtraConfigValue } from 'drizzle-orm/pg-core';
import type { SQLiteColumnBuilderBase, SQLiteTableExtraConfigValue } from 'drizzle-orm/sqlite-core';
import type { AnyColumn, Column, Dialect } from './columns';

/**
 * A table of the one schema: its name, its columns (`columns.ts`), its keys
 * and indexes, and what only one dialect has. `src/db/sqlite/schema` and
 * `src/db/pg/schema` map each into that dialect's drizzle table.
 */

export type Columns = Record<string, AnyColumn>;

/** The SQLite builders of a table's columns. */
export type SqliteBuilders<C extends Columns> = {
  [K in keyof C]: C[K] extends Column<infer S, PgColumnBuilderBase> ? S : never;
};
/** The PostgreSQL builders of a table's columns. */
export type PgBuilders<C extends Columns> = {
  [K in keyof C]: C[K] extends Column<SQLiteColumnBuilderBase, infer P> ? P : never;
};

/** A partial index's condition, given each column as the dialect built it. */
export type IndexCondition = (column: (column: AnyColumn) => SQLWrapper, dialect: Dialect) => SQL;

export class Index {
  constructor(
    readonly name: string,
    readonly unique: boolean,
    readonly columns: readonly AnyColumn[],
    readonly condition?: IndexCondition,
  ) {}

  where(condition: IndexCondition): Index {
    return new Index(this.name, this.unique, this.columns, condition);
  }
}

const indexOf = (name: string, unique: boolean) => ({
  on: (...columns: [AnyColumn, ...AnyColumn[]]) => new Index(name, unique, columns),
});

export const index = (name: string) => indexOf(name, false);
export const uniqueIndex = (name: string) => indexOf(name, true);

export class PrimaryKey {
  constructor(
    readonly columns: readonly AnyColumn[],
    /** PostgreSQL's name for it, where the one drizzle makes up passes 63 characters. */
    readonly pgName?: string,
  ) {}
}

/** A composite primary key. */
export const primaryKey = (config: { columns: [AnyColumn, ...AnyColumn[]]; pgName?: string }) =>
  new PrimaryKey(config.columns, config.pgName);

/** What only one dialect has, written with its own builders over its own columns. */
export interface DialectOnly<C extends Columns> {
  sqlite?(table: BuildColumns<string, SqliteBuilders<C>, 'sqlite'>): SQLiteTableExtraConfigValue[];
  pg?(table: BuildExtraConfigColumns<string, PgBuilders<C>, 'pg'>): PgTableExtraConfigValue[];
}

export class Table<N extends string = string, C extends Columns = Columns> {
  constructor(
    readonly name: N,
    readonly columns: C,
    readonly keys: readonly (Index | PrimaryKey)[],
    readonly only: DialectOnly<C>,
  ) {}
}

export const table = <N extends string, C extends Columns>(
  name: N,
  columns: C,
  keys: (columns: C) => (Index | PrimaryKey)[] = () => [],
  only: DialectOnly<C> = {},
) => new Table(name, columns, keys(columns), only);
