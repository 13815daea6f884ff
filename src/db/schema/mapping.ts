import type { SQL, SQLWrapper } from 'drizzle-orm';
import type { AnyColumn, ColumnBuilderSteps, Dialect } from './columns';
import { Index, Table } from './table';

/**
 * What a dialect's mapper (`src/db/sqlite/schema/table.ts`,
 * `src/db/pg/schema/table.ts`) says of its dialect: the rest of turning a
 * declaration into a drizzle table is the same for both, and written here.
 */
export interface DialectMapping<TColumn extends SQLWrapper, TExtra> {
  readonly dialect: Dialect;
  /** The database's clock in epoch milliseconds (`defaultNow`). */
  readonly now: SQL;
  /** A unique column becomes a unique index of its name (else a unique constraint). */
  readonly uniqueAsIndex: boolean;
  table(
    name: string,
    builders: Record<string, unknown>,
    extras: (self: Record<string, TColumn>) => TExtra[],
  ): Record<string, unknown>;
  index(name: string, unique: boolean, columns: [TColumn, ...TColumn[]], where?: SQL): TExtra;
  primaryKey(columns: [TColumn, ...TColumn[]], pgName?: string): TExtra;
  /** What the declaration gives for this dialect only. */
  only(declared: Table, self: Record<string, TColumn>): TExtra[];
}

/** Per dialect, the column built for each declared one: what a reference to it points at. */
const builtBy = new Map<Dialect, Map<AnyColumn, unknown>>();

/** The dialect's drizzle table of a declaration, built with that dialect's own builders. */
export function mapTable<TColumn extends SQLWrapper, TExtra>(
  declared: Table,
  mapping: DialectMapping<TColumn, TExtra>,
): Record<string, unknown> {
  const built = builtBy.get(mapping.dialect) ?? new Map<AnyColumn, unknown>();
  builtBy.set(mapping.dialect, built);
  const resolve = (column: AnyColumn) => {
    if (!built.has(column)) throw new Error(`${declared.name}: a reference to an unmapped table`);
    return built.get(column);
  };
  const entries = Object.entries(declared.columns);
  const keyOf = new Map(entries.map(([key, column]) => [column, key]));
  const builders = Object.fromEntries(
    entries.map(([key, column]) => {
      const builder = column.build(mapping.dialect, resolve);
      const steps = builder as unknown as ColumnBuilderSteps & { unique(name: string): unknown };
      if (column.defaultsToNow) steps.default(mapping.now);
      if (column.uniqueName && !mapping.uniqueAsIndex) steps.unique(column.uniqueName);
      return [key, builder];
    }),
  );
  const table = mapping.table(declared.name, builders, (self) => {
    const own = (column: AnyColumn): TColumn => {
      const found = self[keyOf.get(column) ?? ''];
      if (!found) throw new Error(`${declared.name}: a key or index names another table's column`);
      return found;
    };
    const ownAll = (columns: readonly AnyColumn[]) => columns.map(own) as [TColumn, ...TColumn[]];
    const uniques = entries.flatMap(([, column]) =>
      column.uniqueName && mapping.uniqueAsIndex
        ? [mapping.index(column.uniqueName, true, [own(column)])]
        : [],
    );
    const keys = declared.keys.map((key) =>
      key instanceof Index
        ? mapping.index(
            key.name,
            key.unique,
            ownAll(key.columns),
            key.condition?.(own, mapping.dialect),
          )
        : mapping.primaryKey(ownAll(key.columns), key.pgName),
    );
    return [...uniques, ...keys, ...mapping.only(declared, self)];
  });
  for (const [key, column] of entries) built.set(column, table[key]);
  return table;
}

/** Every table of a module of declarations, mapped, under the names the module gives them. */
export const mapTables = (
  declarations: Record<string, unknown>,
  tableOf: (declared: Table) => unknown,
): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(declarations)
      .filter((entry): entry is [string, Table] => entry[1] instanceof Table)
      .map(([name, declared]) => [name, tableOf(declared)]),
  );
