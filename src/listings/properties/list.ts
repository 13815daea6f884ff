import type { ReadCache } from '@/db/read-cache';
import { cursorOf } from '@/events/cursor';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { type Utf8, utf8 } from '@/kernel/utf8';
import { halCollection, keysetCollection, pagingOf } from '@/listings/paging';
import { toProperty } from '@/listings/properties/representation';
import { parseListQuery } from '@/listings/query';
import type { ListingsStore, PropertyListing } from '@/listings/store';
import { bindingOf, keyValuesOf, openCursor, sealCursor } from './list-cursor';
import { filtersPropertyRow, usedFilters } from './list-filters';
import { type ListPaging, type PropertyFilter, sortKeysOf } from './list-plan';
import { PROPERTY_LIST_SHAPE, PropertyListQuery } from './list-query';

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

/** The feature and unit tags of a list that filters on no property column. */
export const featureOnlyTags = ({ query }: PropertyFilter): string[] => [
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
