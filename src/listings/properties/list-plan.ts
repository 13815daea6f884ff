import type { Paging } from '@/listings/paging';
import { type PropertyListQuery, SORT_FIELDS, type SortField } from './list-query';

export interface SortKey {
  column: string;
  descending: boolean;
}

/** The ORDER BY keys of a `sort` parameter, each column once, `_id` last. */
export function sortKeysOf(sort: string | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const item of (sort ?? '_id').split(',')) {
    const descending = item.startsWith('-');
    const column = SORT_FIELDS[(descending ? item.slice(1) : item) as SortField];
    if (keys.some((key) => key.column === column)) continue;
    keys.push({ column, descending });
    if (column === 'id') break;
  }
  // `_id` breaks ties, in the direction of the last key so a single-field sort
  // walks that field's (field, id) index either way without a sort step.
  if (keys.at(-1)!.column !== 'id')
    keys.push({ column: 'id', descending: keys.at(-1)!.descending });
  return keys;
}

/** The sort-key values of the last property of a page, `_id` last: where the next page starts. */
export type KeyValues = (string | number)[];

/** Page-number paging, or a keyset page: after the position `after` (null: the first page). */
export interface ListPaging extends Paging {
  /** `from`: the feed position the walk's first page was read at (unset on that page). */
  keyset?: { after: KeyValues | null; counted: boolean; from?: number };
}

export interface PropertyFilter {
  query: PropertyListQuery;
  /** A customer sees only its own properties (`ownerId` = its token `sub`). */
  scopeOwner: string | null;
}

export type Driver =
  | 'id'
  | 'ids'
  | 'unitIds'
  | 'owner'
  | 'cityIds'
  | 'address'
  | 'features'
  | 'sort'
  | 'type'
  | 'numRentableUnits'
  | 'published'
  | 'archived'
  | 'none';

/** Shortest needle the trigram index can answer; shorter ones are checked row by row. */
const TRIGRAM = 3;

/**
 * Which filter's index leads the query. SQLite has no statistics about these
 * tables, so the choice is made here, most selective first, and every other
 * condition is written so it cannot use an index (`+column`, a correlated
 * EXISTS): the plan is the same on a test database and on a million rows
 * (docs/listings-query-plans.md).
 */
export function driverOf(
  query: PropertyListQuery,
  owner: string | undefined,
  sort: SortKey[],
): Driver {
  if (query.id !== undefined) return 'id';
  if (query.ids) return 'ids';
  if (query.unitIds) return 'unitIds';
  if (owner !== undefined) return 'owner';
  if (query.cityIds) return 'cityIds';
  if (query.address !== undefined && [...query.address].length >= TRIGRAM) return 'address';
  if (query.features) return 'features';
  if (sort[0]!.column !== 'id' && sort.length === 2) return 'sort';
  if (query.type) return 'type';
  if (query.numRentableUnits !== undefined) return 'numRentableUnits';
  if (query.published) return 'published';
  if (query.archived) return 'archived';
  return 'none';
}
