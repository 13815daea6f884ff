import type { SQL as BunSQL } from 'bun';
import { and, type SQL as Condition, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { columnsOf } from '@/db/columns';
import type { PgDb } from '@/db/pg/client';
import { properties, propertyCounts, units } from '@/db/pg/schema';
import { EVENTS_APPEND_LOCK } from '@/events/postgres-outbox';
import type { FeatureCriterion } from '@/listings/query';
import type { PropertyListing } from '@/listings/store';
import { type After, afterOf } from './list-cursor';
import { type ListPaging, type PropertyFilter, type SortKey, sortKeysOf } from './list-plan';
import { countsOnly } from './list-sql';
import { type PropertyRecord, UNRENDERED_COLUMNS } from './representation';

/**
 * The columns of a `PropertyRecord`, as SQLite gives them so `toProperty`
 * is shared: booleans as 0 and 1, epoch milliseconds as float8 (Bun reads
 * int8 as a string). Text made from the table once: drizzle building and
 * mapping 23 selected fields per statement was most of a list's CPU.
 */
const RECORD_COLUMNS_TEXT = columnsOf(properties, UNRENDERED_COLUMNS)
  .map(({ name, column }) => {
    if (column.dataType === 'boolean') return `${name}::int AS ${name}`;
    return column.columnType === 'PgBigInt53' ? `${name}::float8 AS ${name}` : name;
  })
  .join(', ');
const RECORD_COLUMNS = sql.raw(RECORD_COLUMNS_TEXT);

/**
 * The records of `SELECT … FROM properties <rest>`: `rest` is the WHERE
 * (and locking) clause, with `$1…` for `params`.
 */
export async function selectRecords(
  client: BunSQL,
  rest: string,
  params: readonly unknown[],
): Promise<PropertyRecord[]> {
  return (await client.unsafe(
    `SELECT ${RECORD_COLUMNS_TEXT} FROM properties ${rest}`,
    params as unknown[],
  )) as PropertyRecord[];
}

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

const whereOf = (condition: SQL | undefined) => (condition ? sql` WHERE ${condition}` : sql``);

/** The total from `property_counts` (kept by triggers) for the filters it can total. */
function countedTotal({ query }: PropertyFilter): SQL {
  const where = and(
    query.cityIds ? inArray(propertyCounts.cityId, query.cityIds) : undefined,
    query.type ? eq(propertyCounts.type, query.type) : undefined,
    query.numRentableUnits !== undefined
      ? eq(propertyCounts.rentableUnits, Number(query.numRentableUnits))
      : undefined,
    query.published ? eq(propertyCounts.published, query.published === 'true') : undefined,
    query.archived ? eq(propertyCounts.archived, query.archived === 'true') : undefined,
  );
  return sql`SELECT coalesce(sum(${propertyCounts.properties}), 0) AS total FROM ${propertyCounts}${whereOf(where)}`;
}

/** One list statement's parts: a query of one row `total`, and the page's query. */
interface ListParts {
  total: SQL;
  page: SQL;
}

/**
 * A list filtered by features alone in `_id` order: the distinct matching
 * properties paged on the feature rows, then their rows (the shape whose
 * plan docs/postgresql.md shows at a million properties).
 */
function featuresOnly(
  filter: PropertyFilter,
  descending: boolean,
  paging: ListPaging,
  after: After | undefined,
): ListParts {
  const match = featureMatch(filter.query.features!, filter.query.includeDeleted === 'true');
  const direction = sql.raw(descending ? 'DESC' : 'ASC');
  const from = after ? sql`${match} AND ${afterSqlOf(after, 'f.property_id')}` : match;
  const ids = sql`SELECT DISTINCT f.property_id FROM unit_features f WHERE ${from}
    ORDER BY f.property_id ${direction} LIMIT ${paging.itemsPerPage} OFFSET ${paging.offset}`;
  return {
    // DISTINCT in a subquery walks (name, value, property_id, …) in order: a
    // Unique step, where count(DISTINCT …) sorted every match again and
    // spilled to disk (21 against 80 ms for 50,087 `pool` units).
    total: sql`SELECT count(*) AS total FROM (SELECT DISTINCT f.property_id FROM unit_features f WHERE ${match}) AS matching`,
    page: sql`SELECT ${RECORD_COLUMNS} FROM ${properties} WHERE ${properties.id} IN (${ids})`,
  };
}

/** `ORDER BY` text of sort keys (columns of a fixed set, never the caller's text). */
const orderOf = (sort: SortKey[], prefix = '') =>
  sql.raw(
    sort.map((key) => `${prefix}${key.column} ${key.descending ? 'DESC' : 'ASC'}`).join(', '),
  );

/** Any other list: a counted or `property_counts` total, a sorted page. */
function filtered(
  filter: PropertyFilter,
  conditions: Condition[],
  sort: SortKey[],
  paging: ListPaging,
  after: After | undefined,
): ListParts {
  const where = whereOf(and(...conditions));
  // The position is a condition of the page only: the total counts the whole list.
  const pageWhere = after ? whereOf(and(...conditions, afterSqlOf(after))) : where;
  return {
    total: countsOnly(filter)
      ? countedTotal(filter)
      : sql`SELECT count(*) AS total FROM ${properties}${where}`,
    page: sql`SELECT ${RECORD_COLUMNS} FROM ${properties}${pageWhere} ORDER BY ${orderOf(sort)}
      LIMIT ${paging.itemsPerPage} OFFSET ${paging.offset}`,
  };
}

/**
 * "After the position" over `properties` (a column of a fixed set, never
 * the caller's text); `idColumn` names the id where the rows are feature rows.
 */
function afterSqlOf(after: After, idColumn = 'id'): SQL {
  const column = (name: string) => sql.raw(name === 'id' ? idColumn : name);
  if ('row' in after) {
    const { columns, op, values } = after.row;
    const list = (items: SQL[]) =>
      items.length === 1 ? items[0]! : sql`(${sql.join(items, sql`, `)})`;
    return sql`${list(columns.map(column))} ${sql.raw(op)} ${list(values.map((v) => sql`${v}`))}`;
  }
  const ors = after.any.map(
    (ands) =>
      sql`(${sql.join(
        ands.map((c) => sql`${column(c.column)} ${sql.raw(c.op)} ${c.value}`),
        sql` AND `,
      )})`,
  );
  return sql`(${sql.join(ors, sql` OR `)})`;
}

/**
 * The feed position in the statement's snapshot: appends commit in id
 * order (`appendEventRows`), so the snapshot holds every id up to it and
 * none after. Null when no event is kept (`emptyFeedPosition`).
 */
const FEED_POSITION = sql.raw('(SELECT max(id) FROM events)::float8');

/**
 * The position with no event kept (all pruned, or none yet): the identity's
 * last value, which is not transactional and may name an append in flight.
 * Read holding the append lock shared, after every append in flight has
 * committed and before another can start, it is exactly the last committed
 * id (an id a rolled-back append left unused skips nothing).
 */
const LOCKED_FEED_POSITION = sql.raw(
  "coalesce((SELECT max(id) FROM events), pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass), 0)::float8",
);

/** A row of the list statement: total and feed position, and a page row (all null on an empty page). */
type ListRow = { total: number | null; feed: number | null } & (PropertyRecord | { id: null });

/**
 * One page of GET /listings/properties and its total on PostgreSQL, in ONE
 * statement: the total laterally joined to the page, so both see one
 * snapshot, as SQLite's read transaction gives them, in one round trip
 * (`src/db/pg/page-and-total.ts` says why). An empty page still answers
 * one row, the total's.
 */
export async function listPropertiesOn(
  db: PgDb,
  filter: PropertyFilter,
  paging: ListPaging,
): Promise<PropertyListing> {
  const listing = await listingOn(db, filter, paging, FEED_POSITION);
  if (listing.feedPosition !== null) return listing as PropertyListing;
  // No event in the snapshot: read again, page and position, with no append in flight.
  return (await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock_shared(${EVENTS_APPEND_LOCK})`);
    return listingOn(tx, filter, paging, LOCKED_FEED_POSITION);
  })) as PropertyListing;
}

async function listingOn(
  db: Pick<PgDb, 'execute'>,
  filter: PropertyFilter,
  paging: ListPaging,
  position: SQL,
): Promise<Omit<PropertyListing, 'feedPosition'> & { feedPosition: number | null }> {
  const counted = !paging.keyset || paging.keyset.counted;
  const conditions = conditionsOf(filter);
  if (!conditions) {
    // Nothing can match, in any snapshot: only the position is read.
    const [row] = (await db.execute(sql`SELECT ${position} AS feed`)) as unknown as {
      feed: number | null;
    }[];
    return { total: counted ? 0 : null, rows: [], feedPosition: row!.feed };
  }
  const sort = sortKeysOf(filter.query.sort);
  const after = paging.keyset?.after ? afterOf(sort, paging.keyset.after) : undefined;
  const { total, page } =
    filter.query.features && conditions.length === 1 && sort.length === 1
      ? featuresOnly(filter, sort[0]!.descending, paging, after)
      : filtered(filter, conditions, sort, paging, after);
  const head = counted
    ? sql`SELECT total, ${position} AS feed FROM (${total}) c`
    : sql`SELECT NULL::float8 AS total, ${position} AS feed`;
  // One statement, one snapshot: the page, its total and the feed position agree.
  // The lateral page keeps its order in practice; the outer ORDER BY makes it a promise.
  const joined = (await db.execute(
    sql`SELECT t.total::float8 AS total, t.feed, p.* FROM (${head}) t
      LEFT JOIN LATERAL (${page}) p ON true ORDER BY ${orderOf(sort, 'p.')}`,
  )) as unknown as ListRow[];
  const rows: PropertyRecord[] = [];
  for (const { total: _, feed: __, ...row } of joined) {
    if (row.id !== null) rows.push(row as PropertyRecord);
  }
  const first = joined[0]!;
  return { total: counted ? (first.total ?? 0) : null, rows, feedPosition: first.feed };
}
