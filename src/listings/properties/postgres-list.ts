import {
  and,
  asc,
  type SQL as Condition,
  count,
  desc,
  eq,
  inArray,
  isNull,
  sql,
} from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { PgDb, PgTx } from '@/db/pg/client';
import { properties, propertyCounts, units } from '@/db/pg/schema';
import type { Paging } from '@/listings/paging';
import type { FeatureCriterion } from '@/listings/query';
import type { PropertyListing } from '@/listings/store';
import { type PropertyFilter, sortKeysOf } from './list-plan';
import { countsOnly } from './list-sql';
import type { PropertyRecord } from './representation';

const bit = (column: PgColumn) => sql<number>`${column}::int`.mapWith(Number);

/** The columns of a `PropertyRecord`, booleans as SQLite's 0 and 1 so `toProperty` is shared. */
export const RECORD = {
  id: properties.id,
  type: properties.type,
  owner_id: properties.ownerId,
  address_line1: properties.addressLine1,
  address_line2: properties.addressLine2,
  city: properties.city,
  city_id: properties.cityId,
  neighbourhood_id: properties.neighbourhoodId,
  postal_code: properties.postalCode,
  country: properties.country,
  latitude: properties.latitude,
  longitude: properties.longitude,
  total_units: properties.totalUnits,
  rentable_units: properties.rentableUnits,
  published_units: properties.publishedUnits,
  verified: bit(properties.verified),
  year_of_construction: properties.yearOfConstruction,
  is_visitable: bit(properties.isVisitable),
  source: properties.source,
  published: bit(properties.published),
  archived: bit(properties.archived),
  created_at: properties.createdAt,
  updated_at: properties.updatedAt,
};

/** Rows of `RECORD` (the city id is one of `CITY_COUNTRIES`, as written). */
export const asRecords = (rows: unknown[]) => rows as PropertyRecord[];

const SORT_COLUMNS: Record<string, PgColumn> = {
  id: properties.id,
  type: properties.type,
  owner_id: properties.ownerId,
  total_units: properties.totalUnits,
  rentable_units: properties.rentableUnits,
};

/** PostgreSQL text cannot hold NUL: no stored value equals one with it, and binding it fails. */
export const hasNul = (value: string) => value.includes('\u0000');

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
const everyCriterion = (unitColumn: string, criteria: FeatureCriterion[]): Condition[] =>
  criteria.map((criterion, index) => {
    const alias = `f${index}`;
    return sql`EXISTS (SELECT 1 FROM unit_features ${sql.raw(alias)} WHERE ${sql.raw(
      `${alias}.unit_id = ${unitColumn}`,
    )} AND ${criterionOn(alias, criterion)})`;
  });

/**
 * The feature rows of a list filtered by features alone (SQLite's
 * `featuresOnlySql`): the first criterion on the row, the others on its
 * unit, deleted units left out unless asked for.
 */
function featureMatch(criteria: FeatureCriterion[], includeDeleted: boolean): Condition {
  const [first, ...rest] = criteria;
  const parts = [criterionOn('f', first!), ...everyCriterion('f.unit_id', rest)];
  if (!includeDeleted) {
    parts.push(
      sql`NOT EXISTS (SELECT 1 FROM units d WHERE d.id = f.unit_id AND d.deleted_at IS NOT NULL)`,
    );
  }
  return sql.join(parts, sql` AND `);
}

/** The conditions SQLite's `conditionsOf` writes, without its index hints; undefined: none can match. */
function conditionsOf({ query, scopeOwner }: PropertyFilter): Condition[] | undefined {
  const conditions: Condition[] = [];
  const owners = [...new Set([scopeOwner, query.ownerId].filter((o) => o != null))];
  const live = query.includeDeleted !== 'true';
  const ids = query.ids?.filter((id) => !hasNul(id));
  const unitIds = query.unitIds?.filter((id) => !hasNul(id));
  const criteria = query.features ?? [];
  if (
    (query.id !== undefined && hasNul(query.id)) ||
    ids?.length === 0 ||
    unitIds?.length === 0 ||
    owners.some(hasNul) ||
    criteria.some((criterion) => Object.values(criterion).some((v) => v !== undefined && hasNul(v)))
  ) {
    return undefined;
  }
  if (query.id !== undefined) conditions.push(eq(properties.id, query.id));
  if (ids) conditions.push(inArray(properties.id, ids));
  if (unitIds) {
    const matching = and(inArray(units.id, unitIds), live ? isNull(units.deletedAt) : undefined);
    conditions.push(
      sql`${properties.id} IN (SELECT ${units.propertyId} FROM ${units} WHERE ${matching})`,
    );
  }
  for (const owner of owners) conditions.push(eq(properties.ownerId, owner));
  if (query.cityIds) conditions.push(inArray(properties.cityId, query.cityIds));
  if (query.address !== undefined) {
    // address_search is lower-cased as written; the trigram index answers this LIKE.
    const pattern = `%${likeEscaped(query.address.toLowerCase())}%`;
    conditions.push(sql`${properties.addressSearch} LIKE ${pattern}`);
  }
  if (query.features) {
    const every = sql.join(everyCriterion('u.id', query.features), sql` AND `);
    conditions.push(
      sql`EXISTS (SELECT 1 FROM units u WHERE u.property_id = ${properties.id}${
        live ? sql` AND u.deleted_at IS NULL` : sql``
      } AND ${every})`,
    );
  }
  if (query.type) conditions.push(eq(properties.type, query.type));
  if (query.numRentableUnits !== undefined) {
    conditions.push(eq(properties.rentableUnits, Number(query.numRentableUnits)));
  }
  if (query.published) conditions.push(eq(properties.published, query.published === 'true'));
  if (query.archived) conditions.push(eq(properties.archived, query.archived === 'true'));
  return conditions;
}

/** The total from `property_counts` (kept by triggers) for the filters it can total. */
async function countedTotal(tx: PgTx, { query }: PropertyFilter): Promise<number> {
  const where = and(
    query.cityIds ? inArray(propertyCounts.cityId, query.cityIds) : undefined,
    query.type ? eq(propertyCounts.type, query.type) : undefined,
    query.numRentableUnits !== undefined
      ? eq(propertyCounts.rentableUnits, Number(query.numRentableUnits))
      : undefined,
    query.published ? eq(propertyCounts.published, query.published === 'true') : undefined,
    query.archived ? eq(propertyCounts.archived, query.archived === 'true') : undefined,
  );
  const [row] = await tx
    .select({ total: sql<number>`coalesce(sum(${propertyCounts.properties}), 0)`.mapWith(Number) })
    .from(propertyCounts)
    .where(where);
  return row?.total ?? 0;
}

/**
 * A list filtered by features alone in `_id` order: the distinct matching
 * properties paged on the feature rows, then their rows (the shape whose
 * plan docs/postgresql.md shows at a million properties).
 */
async function featuresOnly(
  tx: PgTx,
  filter: PropertyFilter,
  descending: boolean,
  paging: Paging,
): Promise<PropertyListing> {
  const match = featureMatch(filter.query.features!, filter.query.includeDeleted === 'true');
  const [counted] = await tx
    .select({ total: sql<number>`count(DISTINCT f.property_id)`.mapWith(Number) })
    .from(sql`unit_features f`)
    .where(match);
  const total = counted?.total ?? 0;
  if (paging.offset >= total) return { total, rows: [] };
  const direction = sql.raw(descending ? 'DESC' : 'ASC');
  const page = sql`SELECT DISTINCT f.property_id FROM unit_features f WHERE ${match}
    ORDER BY f.property_id ${direction} LIMIT ${paging.itemsPerPage} OFFSET ${paging.offset}`;
  const rows = await tx
    .select(RECORD)
    .from(properties)
    .where(sql`${properties.id} IN (${page})`)
    .orderBy(descending ? desc(properties.id) : asc(properties.id));
  return { total, rows: asRecords(rows) };
}

/**
 * One page of GET /listings/properties and its total on PostgreSQL, in one
 * `REPEATABLE READ READ ONLY` transaction: the total and the page see one
 * snapshot, as SQLite's read transaction does.
 */
export async function listPropertiesOn(
  db: PgDb,
  filter: PropertyFilter,
  paging: Paging,
): Promise<PropertyListing> {
  const conditions = conditionsOf(filter);
  if (!conditions) return { total: 0, rows: [] };
  const sort = sortKeysOf(filter.query.sort);
  return db.transaction(
    async (tx) => {
      if (filter.query.features && conditions.length === 1 && sort.length === 1) {
        return featuresOnly(tx, filter, sort[0]!.descending, paging);
      }
      const where = and(...conditions);
      let total: number;
      if (countsOnly(filter)) {
        total = await countedTotal(tx, filter);
      } else {
        const [counted] = await tx.select({ n: count() }).from(properties).where(where);
        total = counted?.n ?? 0;
      }
      if (paging.offset >= total) return { total, rows: [] };
      const rows = await tx
        .select(RECORD)
        .from(properties)
        .where(where)
        .orderBy(
          ...sort.map((key) =>
            key.descending ? desc(SORT_COLUMNS[key.column]!) : asc(SORT_COLUMNS[key.column]!),
          ),
        )
        .limit(paging.itemsPerPage)
        .offset(paging.offset);
      return { total, rows: asRecords(rows) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
