import { z } from 'zod';
import type { Db } from '@/db/client';
import type { ResponseMemo } from '@/db/response-memo';
import { halCollection, type Paging, pagingFields, pagingOf } from '@/listings/paging';
import {
  PROPERTY_COLUMNS,
  type PropertyRecord,
  toProperty,
} from '@/listings/properties/representation';
import { CityId, PropertyType } from '@/listings/properties/schemas';
import { type FeatureCriterion, parseListQuery, type QueryShape } from '@/listings/query';
import { type Bindings, many, memoUntilWrite, one } from '@/listings/sql';

const Value = z.string().max(255);
const values = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(100);
const Flag = z.enum(['true', 'false']);
const SORT_FIELDS = {
  _id: 'id',
  type: 'type',
  ownerId: 'owner_id',
  totalUnits: 'total_units',
  rentableUnits: 'rentable_units',
} as const;
type SortField = keyof typeof SORT_FIELDS;
const SORT_ITEM = `-?(${Object.keys(SORT_FIELDS).join('|')})`;

export const FeatureCriterionSchema = z.strictObject({
  applicability: Value.optional(),
  category: Value.optional(),
  name: Value.optional(),
  value: Value.optional(),
});

/**
 * GET /properties query after `parseListQuery` (docs/listings.md). Kept
 * free of transforms so the same schema documents the parameters.
 */
export const PropertyListQuery = z.strictObject({
  id: Value.optional().describe('Match by property id'),
  ids: values(Value).optional().describe('Match any of the ids'),
  unitIds: values(Value).optional().describe('Match properties having any of these units'),
  cityIds: values(CityId).optional().describe('Match any of the city ids'),
  ownerId: Value.optional().describe('Match by owner id'),
  type: PropertyType.optional(),
  numRentableUnits: z
    .string()
    .regex(/^\d{1,4}$/)
    .optional()
    .describe('Number of rentable units'),
  features: z
    .array(FeatureCriterionSchema)
    .min(1)
    .max(20)
    .optional()
    .describe(
      'features[i][applicability|category|name|value]: one unit must match every criterion',
    ),
  published: Flag.optional(),
  archived: Flag.optional(),
  includeDeleted: Flag.optional().describe('unitIds and features also look at deleted units'),
  address: z
    .string()
    .max(255)
    .regex(/^\P{Cc}*$/u)
    .optional()
    .describe('Case-insensitive substring of addressLine1, addressLine2, city or postalCode'),
  sort: z
    .string()
    .max(255)
    .regex(new RegExp(`^${SORT_ITEM}(,${SORT_ITEM})*$`))
    .optional()
    .describe(
      'Comma-separated _id, type, ownerId, totalUnits, rentableUnits; prefix - = descending',
    ),
  ...pagingFields,
});
export type PropertyListQuery = z.infer<typeof PropertyListQuery>;

export const PROPERTY_LIST_SHAPE: QueryShape = {
  scalars: [
    'id',
    'ownerId',
    'type',
    'numRentableUnits',
    'published',
    'archived',
    'includeDeleted',
    'address',
    'sort',
    'page',
    'itemsPerPage',
  ],
  arrays: ['ids', 'unitIds', 'cityIds'],
  features: true,
};

interface SortKey {
  column: string;
  descending: boolean;
}

function sortKeysOf(sort: string | undefined): SortKey[] {
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

/** Parts of a WHERE clause with their bindings, in order. */
class Conditions {
  readonly parts: string[] = [];
  readonly params: Bindings = [];
  add(part: string, ...params: Bindings) {
    this.parts.push(part);
    this.params.push(...params);
  }
  get sql() {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

const flag = (value: 'true' | 'false') => (value === 'true' ? 1 : 0);
const IN_JSON = 'IN (SELECT value FROM json_each(?))';
const FEATURE_COLUMNS = ['applicability', 'category', 'name', 'value'] as const;

/** A criterion on feature row `alias`; `probe` keeps it off the (name, …) indexes. */
function criterionOn(alias: string, criterion: FeatureCriterion, params: Bindings, probe = true) {
  const parts: string[] = [];
  for (const column of FEATURE_COLUMNS) {
    const wanted = criterion[column];
    if (wanted === undefined) continue;
    parts.push(`${probe ? '+' : ''}${alias}.${column} = ?`);
    params.push(wanted);
  }
  return parts.join(' AND ');
}

/** `EXISTS` per criterion on the features of the unit `unitColumn`, each found by its key. */
function everyCriterion(unitColumn: string, criteria: FeatureCriterion[], params: Bindings) {
  return criteria
    .map((criterion, index) => {
      const alias = `f${index}`;
      const on = criterionOn(alias, criterion, params);
      return `EXISTS (SELECT 1 FROM unit_features ${alias} WHERE ${alias}.unit_id = ${unitColumn} AND ${on})`;
    })
    .join(' AND ');
}

export interface PropertyFilter {
  query: PropertyListQuery;
  /** A customer sees only its own properties (`ownerId` = its token `sub`). */
  scopeOwner: string | null;
}

type Driver =
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
function driverOf(query: PropertyListQuery, owner: string | undefined, sort: SortKey[]): Driver {
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

function conditionsOf(filter: PropertyFilter, sort: SortKey[]) {
  const { query, scopeOwner } = filter;
  const where = new Conditions();
  // An explicit ownerId another than the customer's own simply matches nothing.
  const owners = [...new Set([scopeOwner, query.ownerId].filter((o) => o != null))];
  const driver = driverOf(query, owners[0], sort);
  const lead = (name: Driver) => (driver === name ? '' : '+');
  const liveUnits = query.includeDeleted === 'true' ? '' : ' AND u.deleted_at IS NULL';
  /** With features leading: the matching feature rows (`FROM unit_features f WHERE …`). */
  let featureMatch: Statement | undefined;

  if (query.id !== undefined) where.add(`${lead('id')}p.id = ?`, query.id);
  if (query.ids) where.add(`${lead('ids')}p.id ${IN_JSON}`, JSON.stringify(query.ids));
  if (query.unitIds) {
    const ids = JSON.stringify(query.unitIds);
    if (driver === 'unitIds') {
      where.add(
        `p.id IN (SELECT u.property_id FROM units u WHERE u.id ${IN_JSON}${liveUnits})`,
        ids,
      );
    } else {
      where.add(
        `EXISTS (SELECT 1 FROM units u WHERE u.id ${IN_JSON} AND u.property_id = p.id${liveUnits})`,
        ids,
      );
    }
  }
  for (const owner of owners) where.add(`${lead('owner')}p.owner_id = ?`, owner);
  if (query.cityIds)
    where.add(`${lead('cityIds')}p.city_id ${IN_JSON}`, JSON.stringify(query.cityIds));
  if (query.address !== undefined) {
    const needle = query.address.toLowerCase();
    if (driver === 'address') {
      // A quoted FTS5 string is one literal phrase: `%`, `_` and operators mean nothing.
      where.add(
        'p.seq IN (SELECT rowid FROM property_address_search WHERE property_address_search MATCH ?)',
        `"${needle.replaceAll('"', '""')}"`,
      );
    } else {
      where.add('instr(p.address_search, ?) > 0', needle);
    }
  }
  if (query.features) {
    const params: Bindings = [];
    if (driver === 'features') {
      const [first, ...rest] = query.features;
      const on = criterionOn('f', first!, params, false);
      const others = rest.length > 0 ? ` AND ${everyCriterion('f.unit_id', rest, params)}` : '';
      // Deleted units are few: probing the small partial index of deleted ones costs no
      // row read, where checking each matching unit's own row read millions of pages.
      const live = liveUnits
        ? ' AND NOT EXISTS (SELECT 1 FROM units d INDEXED BY units_deleted_idx WHERE d.id = f.unit_id AND d.deleted_at IS NOT NULL)'
        : '';
      const matching = `FROM unit_features f WHERE ${on}${others}${live}`;
      where.add(`p.id IN (SELECT f.property_id ${matching})`, ...params);
      featureMatch = { sql: matching, params };
    } else {
      const every = everyCriterion('u.id', query.features, params);
      where.add(
        `EXISTS (SELECT 1 FROM units u WHERE u.property_id = p.id${liveUnits} AND ${every})`,
        ...params,
      );
    }
  }
  // With cityIds leading, `type` rides on the (city_id, type, id) index.
  const typeLead = driver === 'cityIds' ? '' : lead('type');
  if (query.type) where.add(`${typeLead}p.type = ?`, query.type);
  if (query.numRentableUnits !== undefined) {
    where.add(`${lead('numRentableUnits')}p.rentable_units = ?`, Number(query.numRentableUnits));
  }
  if (query.published) where.add(`${lead('published')}p.published = ?`, flag(query.published));
  if (query.archived) where.add(`${lead('archived')}p.archived = ?`, flag(query.archived));
  return { where, driver, featureMatch };
}

/** Filters `property_counts` can total: no id, owner, unit, feature or address filter. */
function countsOnly(filter: PropertyFilter): boolean {
  const { query } = filter;
  return (
    filter.scopeOwner === null &&
    query.id === undefined &&
    !query.ids &&
    !query.unitIds &&
    query.ownerId === undefined &&
    query.address === undefined &&
    !query.features
  );
}

function countsSql(query: PropertyListQuery): Statement {
  const where = new Conditions();
  if (query.cityIds) where.add(`city_id ${IN_JSON}`, JSON.stringify(query.cityIds));
  if (query.type) where.add('type = ?', query.type);
  if (query.numRentableUnits !== undefined) {
    where.add('rentable_units = ?', Number(query.numRentableUnits));
  }
  if (query.published) where.add('published = ?', flag(query.published));
  if (query.archived) where.add('archived = ?', flag(query.archived));
  return {
    sql: `SELECT coalesce(sum(properties), 0) AS total FROM property_counts ${where.sql}`,
    params: where.params,
  };
}

interface Statement {
  sql: string;
  params: Bindings;
}

export interface PropertyListSql {
  page: Statement;
  count: Statement;
}

/** The two statements of a list request (exposed for the query-plan tests and doc). */
export function propertyListSql(filter: PropertyFilter, paging: Paging): PropertyListSql {
  const sort = sortKeysOf(filter.query.sort);
  const { where, driver, featureMatch } = conditionsOf(filter, sort);
  if (featureMatch && where.parts.length === 1 && sort.length === 1) {
    return featuresOnlySql(featureMatch, sort[0]!.descending, paging);
  }
  // Without statistics SQLite may prefer (type, id) here; the composite serves both filters.
  const from =
    driver === 'cityIds' ? 'properties p INDEXED BY properties_city_type_idx' : 'properties p';
  const orderBy = sort
    .map((key) => `p.${key.column} ${key.descending ? 'DESC' : 'ASC'}`)
    .join(', ');
  return {
    page: {
      sql: `SELECT ${PROPERTY_COLUMNS} FROM ${from} ${where.sql} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
      params: [...where.params, paging.itemsPerPage, paging.offset],
    },
    count: countsOnly(filter)
      ? countsSql(filter.query)
      : { sql: `SELECT count(*) AS total FROM ${from} ${where.sql}`, params: where.params },
  };
}

/**
 * A list filtered by unit features alone, in `_id` order: the matching
 * feature rows are walked in property order on the (name, value,
 * property_id, unit_id) index, so the page stops after its properties
 * instead of collecting every match first, and the total counts distinct
 * properties on that index without reading a property row.
 */
function featuresOnlySql(match: Statement, descending: boolean, paging: Paging): PropertyListSql {
  const direction = descending ? 'DESC' : 'ASC';
  return {
    page: {
      sql: `SELECT ${PROPERTY_COLUMNS} FROM (SELECT DISTINCT f.property_id AS id ${match.sql}
        ORDER BY f.property_id ${direction} LIMIT ? OFFSET ?) AS m
        JOIN properties p ON p.id = m.id ORDER BY p.id ${direction}`,
      params: [...match.params, paging.itemsPerPage, paging.offset],
    },
    count: {
      sql: `SELECT count(DISTINCT f.property_id) AS total ${match.sql}`,
      params: match.params,
    },
  };
}

/** One page of properties and the number matching (GET /properties). */
export function listProperties(db: Db, filter: PropertyFilter, paging: Paging) {
  const { page, count } = propertyListSql(filter, paging);
  const counted = () => one<{ total: number }>(db, count.sql, ...count.params)!.total;
  // A sum over property_counts is cheap; other totals walk every matching index entry.
  const total = countsOnly(filter)
    ? counted()
    : memoUntilWrite(db, `${count.sql}\u0000${JSON.stringify(count.params)}`, counted);
  const rows = paging.offset < total ? many<PropertyRecord>(db, page.sql, ...page.params) : [];
  return { total, rows };
}

/**
 * The body of GET /listings/properties for a query string and the owner a
 * customer is confined to (null: every owner), remembered in `answers`
 * until the next write. Throws the 400/422 of an invalid query.
 */
export function propertyListBody(
  db: Db,
  answers: ResponseMemo,
  search: string,
  scopeOwner: string | null,
): string {
  return answers.answer(JSON.stringify(['properties', scopeOwner, search]), () => {
    const query = parseListQuery(search, PROPERTY_LIST_SHAPE, PropertyListQuery);
    const paging = pagingOf(query);
    const { total, rows } = listProperties(db, { query, scopeOwner }, paging);
    const items = rows.map(toProperty);
    return JSON.stringify(
      halCollection('/listings/properties', search, paging, total, 'svc:properties', items),
    );
  });
}
