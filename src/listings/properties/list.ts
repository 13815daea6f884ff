import type { Fill, ReadCache } from '@/db/read-cache';
import { cursorOf } from '@/events/cursor';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { parseListQuery } from '@/kernel/query';
import { type Utf8, utf8 } from '@/kernel/utf8';
import { halCollection, keysetCollection, pagingOf } from '@/listings/paging';
import { toProperty } from '@/listings/properties/representation';
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
    if (query.cursor !== undefined)
      throw fail('query.invalid', {
        invalidParams: [{ name: 'cursor', reason: 'is taken only with paging=keyset' }],
      });
    return pagingOf(query);
  }
  if (query.page !== undefined)
    throw fail('query.invalid', {
      invalidParams: [
        { name: 'page', reason: 'is not taken with paging=keyset: follow `_links.next`' },
      ],
    });
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

/**
 * A keyset walk's first page as the cache holds it: its properties (the
 * `_embedded` array's bytes) as read at feed position `feedPosition`, and
 * the page around them at a position from then on (`at`), its feed cursor
 * and its `next` starting the walk there.
 */
interface WalkStart {
  feedPosition: number;
  at(position: number): Utf8;
}

type ListAnswer = Utf8 | WalkStart;

const isWalkStart = (answer: ListAnswer): answer is WalkStart => !(answer instanceof Uint8Array);

/** The body's end after its `_embedded` array. */
const EMBEDDED_END = utf8('}}');

function bodyOf(
  search: string,
  query: PropertyListQuery,
  paging: ListPaging & { binding?: Buffer },
  listing: PropertyListing,
  cursorKey: Buffer,
): ListAnswer {
  if (!paging.binding) {
    const items = listing.rows.map(toProperty);
    const feedCursor = cursorOf(listing.feedPosition);
    return utf8(
      JSON.stringify(
        halCollection(PATH, search, paging, listing.total!, 'svc:properties', items, feedCursor),
      ),
    );
  }
  const rows = listing.rows.slice(0, paging.itemsPerPage - 1);
  const last = rows.at(-1);
  const after =
    listing.rows.length > rows.length && last
      ? (listing.sortKeys?.[rows.length - 1] ?? keyValuesOf(last, sortKeysOf(query.sort)))
      : null;
  /** The page read at feed position `read`, in the walk from feed position `from`. */
  const pageAt = (read: number, from: number) => ({
    total: listing.total,
    feedCursor: cursorOf(read),
    next: after && sealCursor(cursorKey, paging.binding!, { after, from }),
  });
  const from = paging.keyset?.from;
  if (from !== undefined) {
    const page = pageAt(listing.feedPosition, from);
    return utf8(
      JSON.stringify(keysetCollection(PATH, search, page, 'svc:properties', rows.map(toProperty))),
    );
  }
  // A first page: the page's JSON with an empty array, then the array's own. `_embedded`
  // closes the object, so the bytes are those of the whole object stringified.
  const items = utf8(JSON.stringify(rows.map(toProperty)));
  const count = rows.length;
  return {
    feedPosition: listing.feedPosition,
    at(position) {
      const page = keysetCollection(PATH, search, pageAt(position, position), 'svc:properties', []);
      const text = JSON.stringify({ ...page, count });
      const head = utf8(text.slice(0, -'[]}}'.length));
      const body = new Uint8Array(head.length + items.length + EMBEDDED_END.length);
      body.set(head);
      body.set(items, head.length);
      body.set(EMBEDDED_END, head.length + items.length);
      return body;
    },
  };
}

const PATH = '/listings/properties';

/**
 * The body of GET /listings/properties for a query string and the owner a
 * customer is confined to (null: every owner), remembered in `cache` until
 * a write touches a property it can contain (`membershipTags`); the page
 * keeps the feed cursor it was read with, but a keyset walk's first page.
 * `cursorKey` seals keyset cursors. Throws the 400/422 of an invalid query.
 *
 * A keyset walk's first page starts the walk (its feed cursor and the
 * position its `next` carries) where the feed is at the time of the
 * request, remembered or not: a page remembered from an older position
 * would start a walk whose next page counts every change since then
 * towards its bound (`MOST_CHANGES_IN_A_WALK`) and whose feed cursor may
 * be older than the feed keeps, both a 410 for a walk just begun. The
 * position is read first, then the cache is looked at again: a remembered
 * page still valid then was changed by no write committed before the
 * position was read (the look sees every such write), so it is the page as
 * read at that position, byte for byte. On PostgreSQL the look that checks
 * a remembered page reads the position in the same snapshot
 * (`ReadCache.answerPlaced`), so a cached walk start costs the look alone,
 * as a cached point read does.
 */
export function propertyListBody(
  store: ListingsStore,
  cache: ReadCache,
  search: string,
  scopeOwner: string | null,
  cursorKey: Buffer,
): MaybePromise<Utf8> {
  const key = `l:${scopeOwner ?? ''}\u0000${search}`;
  let read = false;
  const compute = (): MaybePromise<Fill<ListAnswer>> => {
    read = true;
    const query = parseListQuery(search, PROPERTY_LIST_SHAPE, PropertyListQuery);
    const paging = listPagingOf(query, scopeOwner, cursorKey);
    const filter = { query, scopeOwner };
    return whenReady(store.listProperties(filter, paging), (listing) => {
      const answer = bodyOf(search, query, paging, listing, cursorKey);
      const tags = membershipTags(filter) ?? [
        ...featureOnlyTags(filter),
        ...listing.rows.map((row) => `p:${row.id}`),
      ];
      const size = isWalkStart(answer)
        ? answer.at(listing.feedPosition).byteLength
        : answer.byteLength;
      return { value: answer, size, tags };
    });
  };
  return whenReady(cache.answerPlaced(key, compute), ({ value: answer, position }) => {
    if (!isWalkStart(answer)) return answer;
    if (read) return answer.at(answer.feedPosition);
    // Checked by a look that read the position in its own snapshot (PostgreSQL): no query.
    if (position !== undefined) return answer.at(Math.max(position, answer.feedPosition));
    return whenReady(store.feedPosition(), (now) =>
      now <= answer.feedPosition
        ? answer.at(answer.feedPosition)
        : whenReady(cache.answer(key, compute), (again) =>
            isWalkStart(again) ? again.at(Math.max(now, again.feedPosition)) : again,
          ),
    );
  });
}
