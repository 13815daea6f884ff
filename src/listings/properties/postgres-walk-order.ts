import { and, type SQL as Condition, type SQL, sql } from 'drizzle-orm';
import type { PgDb } from '@/db/pg/client';
import type { WalkTables } from '@/listings/properties/tables';
import { type After, afterOf } from './list-cursor';
import type { KeyValues, SortKey } from './list-plan';
import { MOST_CHANGES_IN_A_WALK } from './walk-order';

/*
 * The walk of walk-order.ts on PostgreSQL: part A, the (field, id) index
 * range of the properties no write changed since the walk's feed position;
 * part B, the properties changed since, placed by their fields as of then;
 * merged by the statement itself, so the order is PostgreSQL's collation,
 * the one of the index and of the position's comparison.
 */

const WAS_COLUMNS = sql.raw(`type AS was_type, owner_id AS was_owner_id,
  total_units AS was_total_units, rentable_units AS was_rentable_units`);

/**
 * Each property's first change after `from`, its fields before it: of every
 * property, or (`owner`, walkOwnerOf) of those one owner's changes name,
 * before or after a move, each one's first found by a probe of its
 * (property_id, feed_position) range. A property's changes are placed in
 * the order they were written, so the first by position (then id) is the
 * one with the least id.
 */
function firstChangesAfter(from: SQL, owner: string | null): SQL {
  if (owner === null) {
    return sql`SELECT DISTINCT ON (property_id) property_id, ${WAS_COLUMNS}
      FROM property_sort_changes WHERE feed_position > ${from} ORDER BY property_id, id`;
  }
  return sql`SELECT k.property_id, ${WAS_COLUMNS} FROM (
      SELECT property_id FROM property_sort_changes WHERE owner_id = ${owner} AND feed_position > ${from}
      UNION SELECT property_id FROM property_sort_changes
        WHERE new_owner_id = ${owner} AND feed_position > ${from}) k
    CROSS JOIN LATERAL (SELECT type, owner_id, total_units, rentable_units FROM property_sort_changes c
      WHERE c.property_id = k.property_id AND c.feed_position > ${from}
      ORDER BY c.feed_position, c.id LIMIT 1) f`;
}

/** The key columns `walk_0`… of a part: `expression` gives each sort column's value. */
const keysOf = (sort: SortKey[], expression: (column: string) => string) =>
  sql.raw(sort.map((key, i) => `${expression(key.column)} AS walk_${i}`).join(', '));

/** `ORDER BY` text of a walk's keys (`prefix` names the merged rows). */
export const walkOrderOf = (sort: SortKey[], prefix = '') =>
  sql.raw(sort.map((key, i) => `${prefix}walk_${i} ${key.descending ? 'DESC' : 'ASC'}`).join(', '));

/** One page of a walk: after `after` in the order of feed position `from`, at most `limit`. */
export interface WalkPage {
  sort: SortKey[];
  after: KeyValues | null;
  /** The cursor's position, or on a walk's first page the statement's own. */
  from: SQL;
  /** The one owner the list is confined to (`walkOwnerOf`), or null. */
  owner: string | null;
  limit: number;
}

/** How postgres-list.ts writes a record's columns and a position over `properties`. */
export interface RecordSql {
  columns: SQL;
  afterSql: (after: After) => SQL;
}

/** The first `limit` of parts A and B in the walk's order, each row with its key. */
export function walkPageSql(
  conditions: Condition[],
  { sort, after, from, owner, limit }: WalkPage,
  { columns, afterSql }: RecordSql,
): SQL {
  const unchanged = sql`NOT EXISTS (SELECT 1 FROM property_sort_changes c
    WHERE c.property_id = properties.id AND c.feed_position > ${from})`;
  const position: After | undefined = after ? afterOf(sort, after) : undefined;
  const partA = sql`SELECT ${columns}, ${keysOf(sort, (c) => c)} FROM properties
    WHERE ${and(...conditions, position && afterSql(position), unchanged)}
    ORDER BY ${sql.raw(sort.map((k) => `${k.column} ${k.descending ? 'DESC' : 'ASC'}`).join(', '))} LIMIT ${limit}`;
  // Part B's position is on its keys as of `from`: the sort renamed to them.
  const keyed = sort.map((key, i) => ({ ...key, column: `walk_${i}` }));
  const asOf = (column: string) => (column === 'id' ? 'properties.id' : `f.was_${column}`);
  // Each changed property found by id (LIMIT 1 keeps the join a loop over the changes,
  // never a scan of every property however the statistics go).
  const partB = sql`SELECT * FROM (SELECT ${columns}, ${keysOf(sort, asOf)}
    FROM (${firstChangesAfter(from, owner)}) f CROSS JOIN LATERAL (SELECT * FROM properties
      WHERE properties.id = f.property_id AND ${and(...conditions) ?? sql`true`} LIMIT 1) properties) b
    WHERE ${after ? afterSql(afterOf(keyed, after)) : sql`true`} ORDER BY ${walkOrderOf(sort)} LIMIT ${limit}`;
  return sql`(${partA}) UNION ALL (${partB}) ORDER BY ${walkOrderOf(sort)} LIMIT ${limit}`;
}

/**
 * The changes in a walk's scope after `from`, counted up to one past
 * `MOST_CHANGES_IN_A_WALK`: with `owner`, that owner's changes (the owner
 * indexes), else everyone's.
 */
async function changesInAWalkOn(
  db: Pick<PgDb, 'execute'>,
  from: number,
  owner: string | null,
): Promise<number> {
  const upTo = (where: SQL) =>
    sql`(SELECT count(*)::int FROM (SELECT 1 FROM property_sort_changes
      WHERE ${where} AND feed_position > ${from} LIMIT ${MOST_CHANGES_IN_A_WALK + 1}) c)`;
  const [row] = (await db.execute(
    owner === null
      ? sql`SELECT ${upTo(sql`true`)} AS n`
      : sql`SELECT ${upTo(sql`owner_id = ${owner}`)} + ${upTo(sql`new_owner_id = ${owner}`)} AS n`,
  )) as unknown as { n: number }[];
  return row!.n;
}

/** The highest event id pruning may have removed (the feed's `prunedThrough`). */
async function prunedThroughOn(db: Pick<PgDb, 'execute'>): Promise<number> {
  const [row] = (await db.execute(
    sql`SELECT coalesce((SELECT min(id) - 1 FROM events),
      pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass), 0)::float8 AS id`,
  )) as unknown as { id: number }[];
  return row!.id;
}

/** A walk's queries on PostgreSQL around the query of its `page` (`walkPage`). */
export const postgresWalkTables = <Page>(
  db: Pick<PgDb, 'execute'>,
  page: () => Promise<Page>,
): WalkTables<Page> => ({
  changesSince: (from, owner) => changesInAWalkOn(db, from, owner),
  page,
  prunedThrough: () => prunedThroughOn(db),
});
