import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTableName, is, Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { type PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { type SQLiteTable, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import * as pgSchema from '@/db/pg/schema';
import * as declarations from '@/db/schema';
import { Table as Declaration } from '@/db/schema/table';
import * as sqliteSchema from '@/db/sqlite/schema';

/**
 * Both dialects' tables are mapped from one declaration of each table
 * (src/db/schema/), and the two mappings must agree: the same tables,
 * columns (name, nullability, key, default present, an equivalent type),
 * indexes (name, columns, uniqueness, partial or not) and foreign keys,
 * compared from the drizzle table objects. The indexes only PostgreSQL has
 * (declared in the `pg` part of their table): the trigram index that stands
 * for SQLite's FTS5 address table (which lives in a migration, outside the
 * drizzle schema), and the two city × type × counter indexes its planner
 * needs for sorted city lists (docs/postgresql.md, the plans).
 */
const PG_ONLY_INDEXES = [
  'properties_address_search_trgm_idx',
  'properties_city_type_total_units_idx',
  'properties_city_type_rentable_units_idx',
];

/** The PostgreSQL types that stand for each SQLite column kind (docs/postgresql.md). */
const EQUIVALENT: Record<string, string[]> = {
  SQLiteInteger: ['integer', 'bigint'],
  SQLiteTimestamp: ['bigint'],
  SQLiteBoolean: ['boolean'],
  SQLiteText: ['text'],
  SQLiteTextJson: ['json'],
  SQLiteReal: ['double precision'],
  SQLiteBlobBuffer: ['bytea'],
};

const tablesOf = <T extends Table>(schema: Record<string, unknown>): Map<string, T> =>
  new Map(
    Object.values(schema)
      .filter((value): value is T => is(value, Table))
      .map((table) => [getTableName(table), table]),
  );

const sqliteTables = tablesOf<SQLiteTable>(sqliteSchema);
const pgTables = tablesOf<PgTable>(pgSchema);

interface ColumnShape {
  notNull: boolean;
  primary: boolean;
  /** An integer key the database assigns when an insert leaves it out. */
  assignedKey: boolean;
  hasDefault: boolean;
}

interface IndexShape {
  columns: string[];
  unique: boolean;
  partial: boolean;
}

const columnName = (name: string) => toSnakeCase(name);
const indexColumns = (columns: readonly unknown[]) =>
  columns.map((column) =>
    typeof column === 'object' && column !== null && 'name' in column
      ? columnName(String(column.name))
      : 'expression',
  );

function sqliteShape(table: SQLiteTable) {
  const config = sqliteTableConfig(table);
  const compositeKey = config.primaryKeys[0]?.columns.map((c) => columnName(c.name)) ?? [];
  const columns = new Map<string, ColumnShape & { kind: string }>();
  for (const column of config.columns) {
    // SQLite's INTEGER PRIMARY KEY is the rowid: assigned when left out.
    const assignedKey = column.primary && column.columnType === 'SQLiteInteger';
    columns.set(columnName(column.name), {
      notNull: column.notNull,
      primary: column.primary || compositeKey.includes(columnName(column.name)),
      assignedKey,
      hasDefault: column.hasDefault && !assignedKey,
      kind: column.columnType,
    });
  }
  const indexes = new Map<string, IndexShape>(
    config.indexes.map(({ config: index }) => [
      index.name,
      { columns: indexColumns(index.columns), unique: index.unique, partial: !!index.where },
    ]),
  );
  const foreignKeys = config.foreignKeys.map((fk) => {
    const ref = fk.reference();
    return `${ref.columns.map((c) => columnName(c.name))} → ${getTableName(ref.foreignTable)}(${ref.foreignColumns.map((c) => columnName(c.name))}) on delete ${fk.onDelete ?? 'no action'}`;
  });
  return { columns, indexes, foreignKeys: foreignKeys.sort() };
}

function pgShape(table: PgTable) {
  const config = pgTableConfig(table);
  const compositeKey = config.primaryKeys[0]?.columns.map((c) => columnName(c.name)) ?? [];
  const columns = new Map<string, ColumnShape & { sqlType: string }>();
  for (const column of config.columns) {
    columns.set(columnName(column.name), {
      notNull: column.notNull,
      primary: column.primary || compositeKey.includes(columnName(column.name)),
      assignedKey: column.generatedIdentity !== undefined,
      hasDefault: column.hasDefault && column.generatedIdentity === undefined,
      sqlType: column.getSQLType(),
    });
  }
  const indexes = new Map<string, IndexShape>(
    config.indexes
      .filter(({ config: index }) => !PG_ONLY_INDEXES.includes(index.name ?? ''))
      .map(({ config: index }) => [
        index.name ?? '(unnamed)',
        { columns: indexColumns(index.columns), unique: index.unique, partial: !!index.where },
      ]),
  );
  // A unique constraint is PostgreSQL's unique index under another name (a foreign key needs one).
  for (const column of config.columns) {
    if (column.isUnique && column.uniqueName) {
      indexes.set(column.uniqueName, {
        columns: [columnName(column.name)],
        unique: true,
        partial: false,
      });
    }
  }
  const foreignKeys = config.foreignKeys.map((fk) => {
    const ref = fk.reference();
    return `${ref.columns.map((c) => columnName(c.name))} → ${getTableName(ref.foreignTable)}(${ref.foreignColumns.map((c) => columnName(c.name))}) on delete ${fk.onDelete ?? 'no action'}`;
  });
  return { columns, indexes, foreignKeys: foreignKeys.sort() };
}

type TableKeys<S> = {
  [K in keyof S]: S[K] extends { $inferSelect: unknown } ? K : never;
}[keyof S];
type Row<T> = T extends { $inferSelect: infer R } ? R : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Per SQLite table: whether the PostgreSQL table's row type is the same TypeScript type. */
type RowTypesMatch = {
  [K in TableKeys<typeof sqliteSchema>]: K extends keyof typeof pgSchema
    ? Same<Row<(typeof sqliteSchema)[K]>, Row<(typeof pgSchema)[K]>>
    : false;
};
/** The tables whose rows differ: `{}` when none does, else tsc names them here. */
type DifferingRows = {
  [K in keyof RowTypesMatch as RowTypesMatch[K] extends true ? never : K]: RowTypesMatch[K];
};

describe('the PostgreSQL schema is in step with the SQLite schema', () => {
  test('every table reads as the same TypeScript row type (checked by tsc)', () => {
    const differing: DifferingRows = {};
    const checked: (keyof RowTypesMatch)[] = ['properties', 'passkeys', 'events', 'staticPages'];
    expect({ differing, checked: checked.length }).toEqual({ differing: {}, checked: 4 });
  });

  test('the same tables', () => {
    expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
    expect(sqliteTables.size).toBeGreaterThanOrEqual(23);
  });

  for (const [name, sqliteTable] of sqliteTables) {
    test(`${name}: the same columns, indexes and foreign keys`, () => {
      const pgTable = pgTables.get(name);
      if (!pgTable) throw new Error(`${name} has no PostgreSQL table`);
      const lite = sqliteShape(sqliteTable);
      const pg = pgShape(pgTable);
      expect([...pg.columns.keys()].sort()).toEqual([...lite.columns.keys()].sort());
      for (const [column, { kind, ...shape }] of lite.columns) {
        const { sqlType, ...pgColumn } = pg.columns.get(column)!;
        expect({ column, ...pgColumn }).toEqual({ column, ...shape });
        expect({ column, kind, sqlType, allowed: EQUIVALENT[kind]?.includes(sqlType) }).toEqual({
          column,
          kind,
          sqlType,
          allowed: true,
        });
      }
      expect(Object.fromEntries(pg.indexes)).toEqual(Object.fromEntries(lite.indexes));
      expect(pg.foreignKeys).toEqual(lite.foreignKeys);
    });
  }

  test('the trigram index covers the searched address column', () => {
    const config = pgTableConfig(pgSchema.properties);
    const trigram = config.indexes.find(
      (index) => index.config.name === 'properties_address_search_trgm_idx',
    );
    expect(trigram?.config.method).toBe('gin');
    expect(indexColumns(trigram?.config.columns ?? [])).toEqual(['address_search']);
  });
});

describe('each table is declared once', () => {
  const folder = (path: string) => join(import.meta.dir, '../../src/db', path);
  /** The table names a folder's files build with a dialect's own table function. */
  const declaredIn = (path: string, declare: string) =>
    readdirSync(folder(path))
      .filter((name) => name.endsWith('.ts'))
      .flatMap((file) =>
        [
          ...readFileSync(join(folder(path), file), 'utf8').matchAll(
            new RegExp(`${declare}\\(\\s*'(\\w+)'`, 'g'),
          ),
        ].map(([, name]) => `${file}: ${name}`),
      );

  test('both entry points export every declared table under its name, and only those', () => {
    const declared = Object.entries(declarations as Record<string, unknown>)
      .filter((entry): entry is [string, Declaration] => entry[1] instanceof Declaration)
      .map(([name, table]) => [name, table.name]);
    const exported = (schema: Record<string, unknown>) =>
      Object.entries(schema)
        .filter((entry): entry is [string, Table] => is(entry[1], Table))
        .map(([name, table]) => [name, getTableName(table)]);
    expect(declared.length).toBeGreaterThanOrEqual(23);
    expect(exported(sqliteSchema).sort()).toEqual(declared.sort());
    expect(exported(pgSchema).sort()).toEqual(declared.sort());
  });

  test('no dialect folder declares a table of its own', () => {
    expect(declaredIn('sqlite/schema', 'sqliteTable')).toEqual([]);
    expect(declaredIn('pg/schema', 'pgTable')).toEqual([]);
  });
});
