import type { FeatureCriterion } from '@/kernel/query';
import type { PropertyListQuery } from './list-query';

export interface PropertyFilter {
  query: PropertyListQuery;
  /** A customer sees only its own properties (`ownerId` = its token `sub`). */
  scopeOwner: string | null;
}

/** How a parameter's text becomes the value compared. */
export type ValueKind = 'text' | 'integer' | 'flag' | 'instant';

/**
 * What an index does for a filter where the service, not the database,
 * picks the leading index: `selective` leads ahead of the sort's own index,
 * `broad` (a (column, id) index over few distinct values) leads only when
 * the sort has no index, `none` never leads and is checked on the rows the
 * leading index gives.
 */
export type IndexUse = 'selective' | 'broad' | 'none';

/**
 * What a filter matches. `column`: the property column compared with the
 * parameter's value (`=` each value, `in` any of the list, `>=` at or
 * after); `counted` when `property_counts` keeps that column, so a total
 * over such filters alone is a sum of counts; `scoped` when a customer's
 * own owner id is compared too. The others match more than one column:
 * `units` a unit among the ids, `address` a case-insensitive substring of
 * the address fields, `features` one unit matching every criterion.
 */
export type FilterMatch =
  | {
      on: 'column';
      column: string;
      op: '=' | 'in' | '>=';
      value: ValueKind;
      counted?: boolean;
      scoped?: boolean;
    }
  | { on: 'units' | 'address' | 'features' };

export interface FilterDescription {
  match: FilterMatch;
  index: IndexUse;
}

/**
 * The parameters that shape the answer rather than choose properties;
 * every other parameter of `PropertyListQuery` must have its entry below
 * (a parameter without one does not compile).
 */
type ListControl =
  | 'includeDeleted'
  | 'sort'
  | 'page'
  | 'itemsPerPage'
  | 'paging'
  | 'cursor'
  | 'total';

/**
 * Every filter of GET /listings/properties, keyed by its parameter, in the
 * order the conditions are written and, among those whose index may lead,
 * from the most selective (docs/listings-query-plans.md). Each database's
 * renderer (`sqlite-list.ts`, `postgres-list-filter.ts`) turns these into its
 * SQL; the parameter itself is declared in `PropertyListQuery`.
 */
export const PROPERTY_FILTERS = {
  id: { match: { on: 'column', column: 'id', op: '=', value: 'text' }, index: 'selective' },
  ids: { match: { on: 'column', column: 'id', op: 'in', value: 'text' }, index: 'selective' },
  unitIds: { match: { on: 'units' }, index: 'selective' },
  ownerId: {
    match: { on: 'column', column: 'owner_id', op: '=', value: 'text', scoped: true },
    index: 'selective',
  },
  cityIds: {
    match: { on: 'column', column: 'city_id', op: 'in', value: 'text', counted: true },
    index: 'selective',
  },
  address: { match: { on: 'address' }, index: 'selective' },
  features: { match: { on: 'features' }, index: 'selective' },
  type: {
    match: { on: 'column', column: 'type', op: '=', value: 'text', counted: true },
    index: 'broad',
  },
  numRentableUnits: {
    match: { on: 'column', column: 'rentable_units', op: '=', value: 'integer', counted: true },
    index: 'broad',
  },
  published: {
    match: { on: 'column', column: 'published', op: '=', value: 'flag', counted: true },
    index: 'broad',
  },
  archived: {
    match: { on: 'column', column: 'archived', op: '=', value: 'flag', counted: true },
    index: 'broad',
  },
  updatedSince: {
    match: { on: 'column', column: 'updated_at', op: '>=', value: 'instant' },
    index: 'none',
  },
} as const satisfies Record<Exclude<keyof PropertyListQuery, ListControl>, FilterDescription>;

export type FilterName = keyof typeof PROPERTY_FILTERS;
const FILTER_NAMES = Object.keys(PROPERTY_FILTERS) as FilterName[];

/** A value compared with a column, as both databases bind it (flags as booleans). */
export type FilterValue = string | number | boolean;

const VALUE_OF: Record<ValueKind, (text: string) => FilterValue> = {
  text: (text) => text,
  integer: Number,
  flag: (text) => text === 'true',
  instant: Date.parse,
};

/** A filter a query uses: a column's, with its values, or one of the others with the query's. */
export type UsedFilter = { name: FilterName; index: IndexUse } & (
  | { on: 'column'; column: string; op: '=' | 'in' | '>='; counted: boolean; values: FilterValue[] }
  | { on: 'units'; unitIds: string[]; liveUnits: boolean }
  | { on: 'address'; needle: string }
  | { on: 'features'; criteria: FeatureCriterion[]; liveUnits: boolean }
);

/**
 * The filters of a query, in table order. A scoped column also compares
 * the customer's own value; an explicit one different from it simply
 * matches nothing.
 */
export function usedFilters({ query, scopeOwner }: PropertyFilter): UsedFilter[] {
  const used: UsedFilter[] = [];
  const liveUnits = query.includeDeleted !== 'true';
  for (const name of FILTER_NAMES) {
    const { match, index } = PROPERTY_FILTERS[name] as FilterDescription;
    const given = query[name];
    if (match.on === 'column') {
      const texts = given === undefined ? [] : ([given].flat() as string[]);
      const values = match.scoped ? [...new Set([scopeOwner, ...texts])] : texts;
      const present = values.filter((value) => value != null);
      if (present.length === 0) continue;
      const { column, op } = match;
      const counted = match.counted ?? false;
      const toValue = VALUE_OF[match.value];
      used.push({ name, index, on: 'column', column, op, counted, values: present.map(toValue) });
    } else if (given === undefined) continue;
    else if (match.on === 'units') {
      used.push({ name, index, on: 'units', unitIds: given as string[], liveUnits });
    } else if (match.on === 'address') {
      used.push({ name, index, on: 'address', needle: (given as string).toLowerCase() });
    } else {
      used.push({ name, index, on: 'features', criteria: given as FeatureCriterion[], liveUnits });
    }
  }
  return used;
}

/** Only counted columns: `property_counts` can total the list. */
export const countsOnly = (used: UsedFilter[]): boolean =>
  used.every((filter) => filter.on === 'column' && filter.counted);

/** Whether the list filters on the property row itself (a column or the address). */
export const filtersPropertyRow = (used: UsedFilter[]): boolean =>
  used.some((filter) => filter.on === 'column' || filter.on === 'address');
