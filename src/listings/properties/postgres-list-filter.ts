import {
  and,
  type Column,
  type SQL as Condition,
  eq,
  getTableColumns,
  gte,
  inArray,
  isNull,
  type SQL,
  sql,
} from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgTable } from 'drizzle-orm/pg-core';
import { properties, propertyCounts, units } from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import type { FeatureCriterion } from '@/kernel/query';
import type { UsedFilter } from './list-filters';

/** `LIKE` matches `%`, `_` and `\` only as themselves once escaped (`\` is the default escape). */
const likeEscaped = (needle: string) => needle.replace(/[\\%_]/g, (c) => `\\${c}`);

const FEATURE_COLUMNS = ['applicability', 'category', 'name', 'value'] as const;

/** A criterion on feature row `alias` (a constant of this file). */
function criterionOn(alias: string, criterion: FeatureCriterion): Condition {
  const parts = FEATURE_COLUMNS.filter((column) => criterion[column] !== undefined).map(
    (column) => sql`${sql.raw(`${alias}.${column}`)} = ${criterion[column]}`,
  );
  return sql.join(parts, sql` AND `);
}

/** `EXISTS` per criterion on the features of the unit `unitColumn`. */
export const everyCriterion = (unitColumn: string, criteria: FeatureCriterion[]): Condition[] =>
  criteria.map((criterion, index) => {
    const alias = `f${index}`;
    return sql`EXISTS (SELECT 1 FROM unit_features ${sql.raw(alias)} WHERE ${sql.raw(
      `${alias}.unit_id = ${unitColumn}`,
    )} AND ${criterionOn(alias, criterion)})`;
  });

/**
 * The feature rows `f` of a list filtered by features alone: the first
 * criterion on the row, the others on its unit, deleted units left out
 * unless asked for.
 */
export function featureMatch(criteria: FeatureCriterion[], liveUnits: boolean): Condition {
  const [first, ...rest] = criteria;
  const parts = [criterionOn('f', first!), ...everyCriterion('f.unit_id', rest)];
  if (liveUnits) {
    parts.push(
      sql`NOT EXISTS (SELECT 1 FROM units d WHERE d.id = f.unit_id AND d.deleted_at IS NOT NULL)`,
    );
  }
  return sql.join(parts, sql` AND `);
}

/** A table's drizzle columns by their name in the database (the client maps keys to snake_case), read once. */
const byName = (table: PgTable): Record<string, Column> =>
  Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => [toSnakeCase(key), column]),
  );
const PROPERTY_COLUMNS = byName(properties);
const COUNT_COLUMNS = byName(propertyCounts);

type ColumnFilter = Extract<UsedFilter, { on: 'column' }>;

/** A column filter's conditions on `columns`' table; undefined: no row can match. */
function columnConditions(
  { column: name, op, values }: ColumnFilter,
  columns: Record<string, Column>,
): Condition[] | undefined {
  const column = columns[name]!;
  const bindable = values.filter((value) => typeof value !== 'string' || !holdsNul(value));
  if (op === 'in') return bindable.length === 0 ? undefined : [inArray(column, bindable)];
  if (bindable.length < values.length) return undefined;
  return values.map((value) => (op === '>=' ? gte(column, value) : eq(column, value)));
}

/**
 * The conditions of a list's filters, in `PROPERTY_FILTERS` order and
 * without index hints (the planner has statistics and picks); undefined
 * when none can match.
 */
export function conditionsOf(used: UsedFilter[]): Condition[] | undefined {
  const conditions: Condition[] = [];
  for (const filter of used) {
    if (filter.on === 'column') {
      const column = columnConditions(filter, PROPERTY_COLUMNS);
      if (!column) return undefined;
      conditions.push(...column);
    } else if (filter.on === 'units') {
      const unitIds = filter.unitIds.filter((id) => !holdsNul(id));
      if (unitIds.length === 0) return undefined;
      const live = filter.liveUnits ? isNull(units.deletedAt) : undefined;
      conditions.push(
        sql`${properties.id} IN (SELECT ${units.propertyId} FROM ${units} WHERE ${and(inArray(units.id, unitIds), live)})`,
      );
    } else if (filter.on === 'address') {
      // address_search is lower-cased as written; the trigram index answers this LIKE.
      conditions.push(sql`${properties.addressSearch} LIKE ${`%${likeEscaped(filter.needle)}%`}`);
    } else {
      const texts = filter.criteria.flatMap((criterion) => Object.values(criterion));
      if (texts.some((text) => text !== undefined && holdsNul(text))) return undefined;
      const every = sql.join(everyCriterion('u.id', filter.criteria), sql` AND `);
      conditions.push(
        sql`EXISTS (SELECT 1 FROM units u WHERE u.property_id = ${properties.id}${
          filter.liveUnits ? sql` AND u.deleted_at IS NULL` : sql``
        } AND ${every})`,
      );
    }
  }
  return conditions;
}

export const whereOf = (condition: SQL | undefined) =>
  condition ? sql` WHERE ${condition}` : sql``;

/** The total from `property_counts` (kept by triggers), for lists filtered on counted columns only. */
export function countedTotal(used: UsedFilter[]): SQL {
  const conditions = used.flatMap((filter) =>
    filter.on === 'column' ? (columnConditions(filter, COUNT_COLUMNS) ?? []) : [],
  );
  return sql`SELECT coalesce(sum(${propertyCounts.properties}), 0) AS total FROM ${propertyCounts}${whereOf(and(...conditions))}`;
}
