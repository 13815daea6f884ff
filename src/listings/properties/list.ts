import type { Db } from '@/db/client';
import type { ReadCache } from '@/db/read-cache';
import { type Utf8, utf8 } from '@/kernel/utf8';
import { halCollection, type Paging, pagingOf } from '@/listings/paging';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import { parseListQuery } from '@/listings/query';
import { many, one } from '@/listings/sql';
import type { ListingsStore, PropertyListing } from '@/listings/store';
import { type MaybePromise, whenReady } from '@/rate-limit/store';
import type { PropertyFilter } from './list-plan';
import { PROPERTY_LIST_SHAPE, PropertyListQuery } from './list-query';
import { countsOnly, propertyListSql } from './list-sql';

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
  else if (
    query.numRentableUnits !== undefined ||
    query.published ||
    query.archived ||
    query.address !== undefined ||
    tags.length === 0
  ) {
    tags.push('P');
  } else return null;
  return tags;
}

/** One page of properties and the number matching (GET /properties). */
export function listProperties(
  db: Db,
  cache: ReadCache,
  filter: PropertyFilter,
  paging: Paging,
): PropertyListing {
  const { page, count } = propertyListSql(filter, paging);
  const counted = () => one<{ total: number }>(db, count.sql, ...count.params)!.total;
  // A sum over property_counts is cheap; other totals walk every matching index entry
  // and are remembered until a write touches what they count.
  const total = countsOnly(filter)
    ? counted()
    : cache.memoNow(`n:${count.sql}\u0000${JSON.stringify(count.params)}`, () => ({
        value: counted(),
        size: count.sql.length,
        tags: membershipTags(filter) ?? featureOnlyTags(filter),
      }));
  const rows = paging.offset < total ? many<PropertyRecord>(db, page.sql, ...page.params) : [];
  return { total, rows };
}

/** The feature and unit tags of a list that filters on no property column. */
const featureOnlyTags = ({ query }: PropertyFilter): string[] => [
  ...(query.features ?? []).map((c) => (c.name === undefined ? 'F' : `f:${c.name}`)),
  ...(query.unitIds ? ['U'] : []),
];

const bodyOf = (search: string, paging: Paging, { total, rows }: PropertyListing): Utf8 =>
  utf8(
    JSON.stringify(
      halCollection(
        '/listings/properties',
        search,
        paging,
        total,
        'svc:properties',
        rows.map(toProperty),
      ),
    ),
  );

/**
 * The body of GET /listings/properties for a query string and the owner a
 * customer is confined to (null: every owner), remembered in `cache` until
 * a write touches a property it can contain (`membershipTags`). Throws the
 * 400/422 of an invalid query.
 */
export function propertyListBody(
  store: ListingsStore,
  cache: ReadCache,
  search: string,
  scopeOwner: string | null,
): MaybePromise<Utf8> {
  return cache.answer(`l:${scopeOwner ?? ''}\u0000${search}`, () => {
    const query = parseListQuery(search, PROPERTY_LIST_SHAPE, PropertyListQuery);
    const paging = pagingOf(query);
    const filter = { query, scopeOwner };
    return whenReady(store.listProperties(filter, paging), (listing) => {
      const body = bodyOf(search, paging, listing);
      const tags = membershipTags(filter) ?? [
        ...featureOnlyTags(filter),
        ...listing.rows.map((row) => `p:${row.id}`),
      ];
      return { value: body, size: body.byteLength, tags };
    });
  });
}
