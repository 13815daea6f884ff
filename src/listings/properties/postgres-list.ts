import type { SQL as BunSQL } from 'bun';
import { and, type SQL as Condition, type SQL, sql } from 'drizzle-orm';
import { columnsOf } from '@/db/columns';
import type { PgDb } from '@/db/pg/client';
import { properties } from '@/db/pg/schema';
import { EVENTS_APPEND_LOCK } from '@/events/postgres-outbox';
import { runLater } from '@/kernel/steps';
import type { PropertyListing } from '@/listings/store';
import { type After, afterOf } from './list-cursor';
import { countsOnly, type UsedFilter, usedFilters } from './list-filters';
import { type ListPaging, type PropertyFilter, type SortKey, sortKeysOf } from './list-plan';
import { conditionsOf, countedTotal, featureMatch, whereOf } from './postgres-list-filter';
import {
  postgresWalkTables,
  type RecordSql,
  walkOrderOf,
  walkPageSql,
} from './postgres-walk-order';
import { type PropertyRecord, UNRENDERED_COLUMNS } from './representation';
import { type KeyedRecord, keyedOf, walkOwnerOf, walkPage, walksFrozen } from './walk-order';

/**
 * The columns of a `PropertyRecord`, as SQLite gives them so `toProperty`
 * is shared: booleans as 0 and 1, epoch milliseconds as float8 (Bun reads
 * int8 as a string). Text made from the table once: drizzle building and
 * mapping 23 selected fields per statement was most of a list's CPU.
 */
export const RECORD_COLUMNS_TEXT = columnsOf(properties, UNRENDERED_COLUMNS)
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

/** How a walk's page writes records and positions (postgres-walk-order.ts). */
const RECORD_SQL: RecordSql = { columns: RECORD_COLUMNS, afterSql: (after) => afterSqlOf(after) };

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
  features: Extract<UsedFilter, { on: 'features' }>,
  descending: boolean,
  paging: ListPaging,
  after: After | undefined,
): ListParts {
  const match = featureMatch(features.criteria, features.liveUnits);
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
  used: UsedFilter[],
  conditions: Condition[],
  sort: SortKey[],
  paging: ListPaging,
  after: After | undefined,
): ListParts {
  const where = whereOf(and(...conditions));
  // The position is a condition of the page only: the total counts the whole list.
  const pageWhere = after ? whereOf(and(...conditions, afterSqlOf(after))) : where;
  return {
    total: countsOnly(used)
      ? countedTotal(used)
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
  const from = paging.keyset?.from;
  const page = () => listingOn(db, filter, paging, FEED_POSITION);
  const frozen = from !== undefined && walksFrozen(sortKeysOf(filter.query.sort));
  const listing = frozen
    ? await runLater(walkPage(postgresWalkTables(db, page), from, walkOwnerOf(filter)))
    : await page();
  if (listing.feedPosition !== null) return listing as PropertyListing;
  // No event in the snapshot: read again, page and position, with no append in flight.
  return (await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock_shared(${EVENTS_APPEND_LOCK})`);
    return listingOn(tx, filter, paging, LOCKED_FEED_POSITION);
  })) as PropertyListing;
}

/**
 * The change feed's position now (`ListingsStore.feedPosition`), read as
 * `listPropertiesOn` reads a page's: the last event id committed, or with
 * none kept the last assigned, read with no append in flight.
 */
export async function feedPositionOn(db: PgDb): Promise<number> {
  const read = async (on: Pick<PgDb, 'execute'>, position: SQL) =>
    (
      (await on.execute(sql`SELECT ${position} AS feed`)) as unknown as { feed: number | null }[]
    )[0]!.feed;
  const kept = await read(db, FEED_POSITION);
  if (kept !== null) return kept;
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock_shared(${EVENTS_APPEND_LOCK})`);
    return (await read(tx, LOCKED_FEED_POSITION))!;
  });
}

async function listingOn(
  db: Pick<PgDb, 'execute'>,
  filter: PropertyFilter,
  paging: ListPaging,
  position: SQL,
): Promise<Omit<PropertyListing, 'feedPosition'> & { feedPosition: number | null }> {
  const counted = !paging.keyset || paging.keyset.counted;
  const used = usedFilters(filter);
  const conditions = conditionsOf(used);
  if (!conditions) {
    // Nothing can match, in any snapshot: only the position is read.
    const [row] = (await db.execute(sql`SELECT ${position} AS feed`)) as unknown as {
      feed: number | null;
    }[];
    return { total: counted ? 0 : null, rows: [], feedPosition: row!.feed };
  }
  const sort = sortKeysOf(filter.query.sort);
  const after = paging.keyset?.after ? afterOf(sort, paging.keyset.after) : undefined;
  const [only] = used;
  const { total, page } =
    only?.on === 'features' && used.length === 1 && sort.length === 1
      ? featuresOnly(only, sort[0]!.descending, paging, after)
      : filtered(used, conditions, sort, paging, after);
  // A walk in an order writes change keeps its first snapshot's order (postgres-walk-order.ts).
  const walk = paging.keyset &&
    walksFrozen(sort) && {
      ...{ sort, after: paging.keyset.after, limit: paging.itemsPerPage },
      owner: walkOwnerOf(filter),
      from: paging.keyset.from === undefined ? position : sql`${paging.keyset.from}`,
    };
  const head = counted
    ? sql`SELECT total, ${position} AS feed FROM (${total}) c`
    : sql`SELECT NULL::float8 AS total, ${position} AS feed`;
  // One statement, one snapshot: the page, its total and the feed position agree.
  // The lateral page keeps its order in practice; the outer ORDER BY makes it a promise.
  const joined = (await db.execute(
    sql`SELECT t.total::float8 AS total, t.feed, p.* FROM (${head}) t
      LEFT JOIN LATERAL (${walk ? walkPageSql(conditions, walk, RECORD_SQL) : page}) p ON true
      ORDER BY ${walk ? walkOrderOf(sort, 'p.') : orderOf(sort, 'p.')}`,
  )) as unknown as ListRow[];
  const rows: PropertyRecord[] = [];
  for (const { total: _, feed: __, ...row } of joined) {
    if (row.id !== null) rows.push(row as PropertyRecord);
  }
  const first = joined[0]!;
  const counts = { total: counted ? (first.total ?? 0) : null, feedPosition: first.feed };
  if (!walk) return { ...counts, rows };
  const keyed = rows.map((row) => keyedOf(row as KeyedRecord, sort));
  return {
    ...counts,
    rows: keyed.map((item) => item.row),
    sortKeys: keyed.map((item) => item.key),
  };
}
