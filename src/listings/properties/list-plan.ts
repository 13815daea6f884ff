import type { Paging } from '@/listings/paging';
import type { FilterName, IndexUse, UsedFilter } from './list-filters';
import { SORT_FIELDS, type SortField } from './list-query';

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

export type { PropertyFilter } from './list-filters';

/** The filter whose index leads a query, or the sort's index, or none. */
export type Driver = FilterName | 'sort' | 'none';

/** Shortest needle the trigram index can answer; shorter ones are checked row by row. */
const TRIGRAM = 3;

const canLead = (filter: UsedFilter, use: IndexUse) =>
  filter.index === use && (filter.on !== 'address' || [...filter.needle].length >= TRIGRAM);

/**
 * Which index leads the query. SQLite has no statistics about these
 * tables, so the choice is made here: the first selective filter in
 * `PROPERTY_FILTERS` order, else the sort's (field, id) index, else the
 * first broad filter; every other condition is written so it cannot use an
 * index (`+column`, a correlated EXISTS): the plan is the same on a test
 * database and on a million rows (docs/listings-query-plans.md).
 */
export function driverOf(used: UsedFilter[], sort: SortKey[]): Driver {
  const selective = used.find((filter) => canLead(filter, 'selective'));
  if (selective) return selective.name;
  if (sort[0]!.column !== 'id' && sort.length === 2) return 'sort';
  return used.find((filter) => canLead(filter, 'broad'))?.name ?? 'none';
}
