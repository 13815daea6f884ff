import type { HasDefault, IsPrimaryKey, NotNull, SQL } from 'drizzle-orm';
import {
  type PgColumnBuilderBase,
  boolean as pgBoolean,
  doublePrecision as pgDoublePrecision,
  integer as pgInteger,
  json as pgJson,
  text as pgText,
} from 'drizzle-orm/pg-core';
import {
  type SQLiteColumnBuilderBase,
  blob as sqliteBlob,
  integer as sqliteInteger,
  real as sqliteReal,
  text as sqliteText,
} from 'drizzle-orm/sqlite-core';
import {
  bytea,
  epochMsNumber as pgBigint,
  epochMs as pgEpochMs,
  serialKey as pgSerialKey,
} from './pg-columns';

/**
 * The column kit of the one schema (`src/db/schema/`): each kind names the
 * builder that stands for it in each dialect, and a column records what its
 * declaration adds (not null, a default, a key, a reference) so that each
 * dialect's mapper (`sqliteTableOf`, `pgTableOf`) replays it on that
 * dialect's builder. The two type parameters are the builders' own types,
 * so a mapped table has exactly the types the dialect's builders give.
 */

export type OnDelete = 'cascade' | 'restrict' | 'no action' | 'set null' | 'set default';
export type Dialect = 'sqlite' | 'pg';

/** What a step may call on a builder: drizzle's builders change themselves and return `this`. */
export interface ColumnBuilderSteps {
  notNull(): unknown;
  default(value: unknown): unknown;
  primaryKey(): unknown;
  references(ref: () => unknown, actions?: { onDelete?: OnDelete }): unknown;
}

/** The dialect column a mapper built for a neutral column (the target of a reference). */
export type ResolveColumn = (column: AnyColumn) => unknown;

type Step = (builder: ColumnBuilderSteps, resolve: ResolveColumn) => void;

/** What a column's value is read as, for its `default`. */
type DataOf<B> = B extends { _: { $type: infer T } }
  ? T
  : B extends { _: { data: infer D } }
    ? D
    : never;

export class Column<S extends SQLiteColumnBuilderBase, P extends PgColumnBuilderBase> {
  constructor(
    private readonly base: { readonly sqlite: () => S; readonly pg: () => P },
    private readonly steps: readonly Step[] = [],
    /** A unique column: PostgreSQL's unique constraint, SQLite's unique index, of this name. */
    readonly uniqueName?: string,
    /** Defaults to the database's clock in epoch milliseconds (each dialect's expression). */
    readonly defaultsToNow = false,
  ) {}

  private next<S2 extends SQLiteColumnBuilderBase, P2 extends PgColumnBuilderBase>(
    step?: Step,
    change: { uniqueName?: string; defaultsToNow?: boolean } = {},
  ): Column<S2, P2> {
    return new Column<S2, P2>(
      this.base as unknown as { sqlite: () => S2; pg: () => P2 },
      step ? [...this.steps, step] : this.steps,
      change.uniqueName ?? this.uniqueName,
      change.defaultsToNow ?? this.defaultsToNow,
    );
  }

  notNull(): Column<NotNull<S>, NotNull<P>> {
    return this.next((builder) => builder.notNull());
  }

  default(value: DataOf<S> | SQL): Column<HasDefault<S>, HasDefault<P>> {
    return this.next((builder) => builder.default(value));
  }

  /** The database's current time, epoch milliseconds, when an insert leaves the column out. */
  defaultNow(): Column<HasDefault<S>, HasDefault<P>> {
    return this.next(undefined, { defaultsToNow: true });
  }

  primaryKey(): Column<IsPrimaryKey<NotNull<S>>, IsPrimaryKey<NotNull<P>>> {
    return this.next((builder) => builder.primaryKey());
  }

  references(ref: () => AnyColumn, actions?: { onDelete?: OnDelete }): Column<S, P> {
    return this.next((builder, resolve) => builder.references(() => resolve(ref()), actions));
  }

  unique(name: string): Column<S, P> {
    return this.next(undefined, { uniqueName: name });
  }

  /** The dialect's builder with every step of the declaration applied. */
  build(dialect: 'sqlite', resolve: ResolveColumn): S;
  build(dialect: 'pg', resolve: ResolveColumn): P;
  build(dialect: Dialect, resolve: ResolveColumn): S | P;
  build(dialect: Dialect, resolve: ResolveColumn): S | P {
    const builder = dialect === 'sqlite' ? this.base.sqlite() : this.base.pg();
    for (const step of this.steps) step(builder as unknown as ColumnBuilderSteps, resolve);
    return builder;
  }
}

export type AnyColumn = Column<SQLiteColumnBuilderBase, PgColumnBuilderBase>;

const column = <S extends SQLiteColumnBuilderBase, P extends PgColumnBuilderBase>(
  sqlite: () => S,
  pg: () => P,
) => new Column({ sqlite, pg });

const plainText = () =>
  column(
    () => sqliteText(),
    () => pgText(),
  );

const enumText = <U extends string, T extends Readonly<[U, ...U[]]>>(config: { enum: T }) =>
  column(
    () => sqliteText(config),
    () => pgText(config),
  );

export function text(): ReturnType<typeof plainText>;
/** Text of a closed list of values (typed; no CHECK constraint in either database). */
export function text<U extends string, T extends Readonly<[U, ...U[]]>>(config: {
  enum: T;
}): ReturnType<typeof enumText<U, T>>;
export function text(config?: { enum: Readonly<[string, ...string[]]> }): unknown {
  return config ? enumText(config) : plainText();
}

/** A 32-bit integer on PostgreSQL; SQLite's integers are all 64-bit. */
export const integer = () =>
  column(
    () => sqliteInteger(),
    () => pgInteger(),
  );

/** An integer past the range of int4 (ids, positions, cents), read as a number. */
export const bigInteger = () =>
  column(
    () => sqliteInteger(),
    () => pgBigint(),
  );

/** Epoch milliseconds kept as a number. */
export const epochMsNumber = bigInteger;

/** Epoch milliseconds read and written as a `Date` (both store the number). */
export const epochMs = () =>
  column(
    () => sqliteInteger({ mode: 'timestamp_ms' }),
    () => pgEpochMs(),
  );

export const real = () =>
  column(
    () => sqliteReal(),
    () => pgDoublePrecision(),
  );

/** SQLite stores 0 or 1. */
export const boolean = () =>
  column(
    () => sqliteInteger({ mode: 'boolean' }),
    () => pgBoolean(),
  );

/** JSON as text on SQLite, PostgreSQL's `json` (kept as written, unlike `jsonb`). */
export const json = <T>() =>
  column(
    () => sqliteText({ mode: 'json' }).$type<T>(),
    () => pgJson().$type<T>(),
  );

/** Binary data, read as a `Buffer`. */
export const bytes = () =>
  column(
    () => sqliteBlob({ mode: 'buffer' }),
    () => bytea(),
  );

/**
 * An integer key the database assigns when the insert leaves it out: SQLite's
 * rowid (`neverReused`: AUTOINCREMENT, so an id is never handed out again
 * once its row is deleted), PostgreSQL's identity column.
 */
export const serialKey = ({ neverReused = false }: { neverReused?: boolean } = {}) =>
  column(
    () => sqliteInteger().primaryKey({ autoIncrement: neverReused }),
    () => pgSerialKey(),
  );
