import type { ReadCache } from '@/db/read-cache';
import type { Db } from '@/db/sqlite/client';
import { runNow } from '@/kernel/steps';
import { many, one } from '@/listings/sqlite-statements';
import type { PropertyListing } from '@/listings/store';
import { featureOnlyTags, membershipTags } from './list';
import { countsOnly, usedFilters } from './list-filters';
import { type ListPaging, type PropertyFilter, sortKeysOf } from './list-plan';
import type { PropertyRecord } from './representation';
import { propertyListSql } from './sqlite-list';
import { changesInAWalkSql, mergeWalk } from './sqlite-walk-order';
import { type KeyedRecord, walkOwnerOf, walkPage, walksFrozen } from './walk-order';

/**
 * The change feed's position in the snapshot being read: the last event id
 * (ids commit in id order, see `appendEvent`), or with none kept the last
 * id ever assigned.
 */
const FEED_POSITION = `SELECT coalesce((SELECT max(id) FROM events),
  (SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS id`;

/** The change feed's position now (`ListingsStore.feedPosition`). */
export const feedPositionOf = (db: Db): number => one<{ id: number }>(db, FEED_POSITION)!.id;

/** One page of properties, the number matching and the feed position of the page (GET /properties). */
export function listProperties(
  db: Db,
  cache: ReadCache,
  filter: PropertyFilter,
  paging: ListPaging,
): PropertyListing {
  const { page, count } = propertyListSql(filter, paging);
  const counted = () => one<{ total: number }>(db, count.sql, ...count.params)!.total;
  // A sum over property_counts is cheap; other totals walk every matching index entry
  // and are remembered until a write touches what they count.
  const total =
    paging.keyset && !paging.keyset.counted
      ? null
      : countsOnly(usedFilters(filter))
        ? counted()
        : cache.memoNow(`n:${count.sql}\u0000${JSON.stringify(count.params)}`, () => ({
            value: counted(),
            size: count.sql.length,
            tags: membershipTags(filter) ?? featureOnlyTags(filter),
          }));
  // The page and the feed position in one read transaction: a write committing between
  // them would otherwise be named by the position and missing from the page.
  return db.$client.transaction(() => {
    const feedPosition = one<{ id: number }>(db, FEED_POSITION)!.id;
    if (paging.keyset && walksFrozen(sortKeysOf(filter.query.sort))) {
      return { total, feedPosition, ...walkPageOf(db, filter, paging, feedPosition) };
    }
    const rows =
      total === null || paging.offset < total
        ? many<PropertyRecord>(db, page.sql, ...page.params)
        : [];
    return { total, rows, feedPosition };
  })();
}

/**
 * A keyset page in an order writes change, in the order of the walk's
 * first snapshot (walk-order.ts), unless the walk expired (`walkPage`).
 */
function walkPageOf(db: Db, filter: PropertyFilter, paging: ListPaging, feedPosition: number) {
  const from = paging.keyset!.from ?? feedPosition;
  const page = () => {
    const { page, changed } = propertyListSql(filter, {
      ...paging,
      keyset: { ...paging.keyset!, from },
    });
    return mergeWalk(
      many<PropertyRecord>(db, page.sql, ...page.params),
      many<KeyedRecord>(db, changed!.sql, ...changed!.params),
      sortKeysOf(filter.query.sort),
      paging.itemsPerPage,
    );
  };
  const changesSince = (since: number, owner: string | null) => {
    const changes = changesInAWalkSql(since, owner);
    return one<{ n: number }>(db, changes.sql, ...changes.params)!.n;
  };
  const prunedThrough = () => one<{ id: number }>(db, PRUNED_THROUGH)!.id;
  return runNow(walkPage({ changesSince, page, prunedThrough }, from, walkOwnerOf(filter)));
}

/** The highest event id pruning may have removed (the feed's `prunedThrough`). */
const PRUNED_THROUGH = `SELECT coalesce((SELECT min(id) - 1 FROM events),
  (SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS id`;
