import type { Db } from '@/db/client';
import type { ReadCache } from '@/db/read-cache';
import { cursorOf } from '@/events/cursor';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { type Utf8, utf8 } from '@/kernel/utf8';
import { halCollection, keysetCollection, pagingOf } from '@/listings/paging';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import { parseListQuery } from '@/listings/query';
import { many, one } from '@/listings/sqlite-statements';
import type { ListingsStore, PropertyListing } from '@/listings/store';
import { bindingOf, keyValuesOf, openCursor, sealCursor } from './list-cursor';
import { countsOnly, filtersPropertyRow, usedFilters } from './list-filters';
import { type ListPaging, type PropertyFilter, sortKeysOf } from './list-plan';
import { PROPERTY_LIST_SHAPE, PropertyListQuery } from './list-query';
import { propertyListSql } from './sqlite-list';
import { mergeWalk } from './sqlite-walk-order';
import { type KeyedRecord, walksFrozen } from './walk-order';

/**
 * The cache tags that name which properties a list can contain: the
 * narrowest of its ids, owner, cities (with the type) or type that every
 * write moving a property into or out of the list touches (a property write
 * touches its id, owner, city, city × type and type before and after), and
 * the unit features and units it filters on. Null: the list filters on no
 * property column, so it is decided by units and features alone and its
 * rows are tagged one by one.
 */
export function membershipTags({ query, scopeOwner }: PropertyFilter): string[] | null {
  const tags: string[] = [];
  for (const criterion of query.features ?? []) {
    tags.push(criterion.name === undefined ? 'F' : `f:${criterion.name}`);
  }
  if (query.unitIds) tags.push('U');
  const owner = scopeOwner ?? query.ownerId;
  const ids = query.id !== undefined ? [query.id] : query.ids;
  if (ids) tags.push(...ids.map((id) => `p:${id}`));
  else if (owner !== undefined) tags.push(`o:${owner}`);
  else if (query.cityIds) {
    tags.push(
      ...query.cityIds.map((city) => (query.type ? `ct:${city}|${query.type}` : `c:${city}`)),
    );
  } else if (query.type) tags.push(`t:${query.type}`);
  else if (filtersPropertyRow(usedFilters({ query, scopeOwner })) || tags.length === 0) {
    tags.push('P');
  } else return null;
  return tags;
}

/**
 * The change feed's position in the snapshot being read: the last event id
 * (ids commit in id order, see `appendEvent`), or with none kept the last
 * id ever assigned.
 */
const FEED_POSITION = `SELECT coalesce((SELECT max(id) FROM events),
  (SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS id`;

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
 * first snapshot (walk-order.ts); a walk started before the oldest event
 * kept answers 410, as the feed does.
 */
function walkPageOf(db: Db, filter: PropertyFilter, paging: ListPaging, feedPosition: number) {
  const from = paging.keyset!.from ?? feedPosition;
  const { page, changed } = propertyListSql(filter, {
    ...paging,
    keyset: { ...paging.keyset!, from },
  });
  const unchanged = many<PropertyRecord>(db, page.sql, ...page.params);
  const merged = mergeWalk(
    unchanged,
    many<KeyedRecord>(db, changed!.sql, ...changed!.params),
    sortKeysOf(filter.query.sort),
    paging.itemsPerPage,
  );
  if (from < one<{ id: number }>(db, PRUNED_THROUGH)!.id) throw fail('events.cursor_expired');
  return merged;
}

/** The highest event id pruning may have removed (the feed's `prunedThrough`). */
const PRUNED_THROUGH = `SELECT coalesce((SELECT min(id) - 1 FROM events),
  (SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS id`;

/** The feature and unit tags of a list that filters on no property column. */
const featureOnlyTags = ({ query }: PropertyFilter): string[] => [
  ...(query.features ?? []).map((c) => (c.name === undefined ? 'F' : `f:${c.name}`)),
  ...(query.unitIds ? ['U'] : []),
];

/**
 * The paging of a parsed query: page numbers, or (`paging=keyset`) the
 * position its `cursor` opens to, one more row than the page to tell
 * whether another follows. Page numbers and keyset parameters do not mix.
 */
function listPagingOf(
  query: PropertyListQuery,
  scopeOwner: string | null,
  cursorKey: Buffer,
): ListPaging & { binding?: Buffer } {
  if (query.paging !== 'keyset') {
    if (query.cursor !== undefined) throw fail('listings.query_invalid');
    return pagingOf(query);
  }
  if (query.page !== undefined) throw fail('listings.query_invalid');
  const binding = bindingOf(query, scopeOwner);
  const sort = sortKeysOf(query.sort);
  const { itemsPerPage } = pagingOf(query);
  return {
    page: 1,
    itemsPerPage: itemsPerPage + 1,
    offset: 0,
    keyset: {
      ...(query.cursor === undefined
        ? { after: null }
        : openCursor(cursorKey, binding, query.cursor, sort)),
      counted: query.total === 'true',
    },
    binding,
  };
}

function bodyOf(
  search: string,
  query: PropertyListQuery,
  paging: ListPaging & { binding?: Buffer },
  listing: PropertyListing,
  cursorKey: Buffer,
): Utf8 {
  const feedCursor = cursorOf(listing.feedPosition);
  if (!paging.binding) {
    const items = listing.rows.map(toProperty);
    return utf8(
      JSON.stringify(
        halCollection(PATH, search, paging, listing.total!, 'svc:properties', items, feedCursor),
      ),
    );
  }
  const rows = listing.rows.slice(0, paging.itemsPerPage - 1);
  const last = rows.at(-1);
  const next =
    listing.rows.length > rows.length && last
      ? sealCursor(cursorKey, paging.binding, {
          after: listing.sortKeys?.[rows.length - 1] ?? keyValuesOf(last, sortKeysOf(query.sort)),
          from: paging.keyset?.from ?? listing.feedPosition,
        })
      : null;
  const page = { total: listing.total, feedCursor, next };
  return utf8(
    JSON.stringify(keysetCollection(PATH, search, page, 'svc:properties', rows.map(toProperty))),
  );
}

const PATH = '/listings/properties';

/**
 * The body of GET /listings/properties for a query string and the owner a
 * customer is confined to (null: every owner), remembered in `cache` until
 * a write touches a property it can contain (`membershipTags`); the page
 * keeps the feed cursor it was read with. `cursorKey` seals keyset cursors.
 * Throws the 400/422 of an invalid query.
 */
export function propertyListBody(
  store: ListingsStore,
  cache: ReadCache,
  search: string,
  scopeOwner: string | null,
  cursorKey: Buffer,
): MaybePromise<Utf8> {
  return cache.answer(`l:${scopeOwner ?? ''}\u0000${search}`, () => {
    const query = parseListQuery(search, PROPERTY_LIST_SHAPE, PropertyListQuery);
    const paging = listPagingOf(query, scopeOwner, cursorKey);
    const filter = { query, scopeOwner };
    return whenReady(store.listProperties(filter, paging), (listing) => {
      const body = bodyOf(search, query, paging, listing, cursorKey);
      const tags = membershipTags(filter) ?? [
        ...featureOnlyTags(filter),
        ...listing.rows.map((row) => `p:${row.id}`),
      ];
      return { value: body, size: body.byteLength, tags };
    });
  });
}
