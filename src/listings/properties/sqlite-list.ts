import { type Bindings, Conditions } from '@/db/sqlite/where';
import type { FeatureCriterion } from '@/kernel/query';
import { PROPERTY_COLUMNS } from '@/listings/properties/sqlite-record';
import { afterOf, afterSql } from './list-cursor';
import { countsOnly, type FilterValue, type UsedFilter, usedFilters } from './list-filters';
import {
  type Driver,
  driverOf,
  type ListPaging,
  type PropertyFilter,
  type SortKey,
  sortKeysOf,
} from './list-plan';
import { changedSinceSql, UNCHANGED_SINCE } from './sqlite-walk-order';
import { walkOwnerOf, walksFrozen } from './walk-order';

const IN_JSON = 'IN (SELECT value FROM json_each(?))';
const FEATURE_COLUMNS = ['applicability', 'category', 'name', 'value'] as const;
/** SQLite has no boolean: flags are 1 and 0. */
const bound = (value: FilterValue) => (typeof value === 'boolean' ? Number(value) : value);

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

type Used<On extends UsedFilter['on']> = Extract<UsedFilter, { on: On }>;

/**
 * A column's condition; `+` keeps every column but the leading one off its
 * index. One city is an equality, so the (city_id, type, id) index also
 * gives the order; with cities leading, `type` rides on that index.
 */
function columnCondition(where: Conditions, filter: Used<'column'>, driver: Driver) {
  const lead =
    filter.name === driver || (filter.name === 'type' && driver === 'cityIds') ? '' : '+';
  const column = `${lead}p.${filter.column}`;
  if (filter.op === 'in' && (filter.name !== 'cityIds' || filter.values.length > 1)) {
    where.add(`${column} ${IN_JSON}`, JSON.stringify(filter.values));
  } else {
    const op = filter.op === 'in' ? '=' : filter.op;
    for (const value of filter.values) where.add(`${column} ${op} ?`, bound(value));
  }
}

function unitsCondition(where: Conditions, { unitIds, liveUnits }: Used<'units'>, lead: boolean) {
  const ids = JSON.stringify(unitIds);
  const live = liveUnits ? ' AND u.deleted_at IS NULL' : '';
  if (lead) {
    where.add(`p.id IN (SELECT u.property_id FROM units u WHERE u.id ${IN_JSON}${live})`, ids);
  } else {
    where.add(
      `EXISTS (SELECT 1 FROM units u WHERE u.id ${IN_JSON} AND u.property_id = p.id${live})`,
      ids,
    );
  }
}

function addressCondition(where: Conditions, { needle }: Used<'address'>, lead: boolean) {
  if (lead) {
    // A quoted FTS5 string is one literal phrase: `%`, `_` and operators mean nothing.
    where.add(
      'p.seq IN (SELECT rowid FROM property_address_search WHERE property_address_search MATCH ?)',
      `"${needle.replaceAll('"', '""')}"`,
    );
  } else {
    where.add('instr(p.address_search, ?) > 0', needle);
  }
}

/** With features leading, also the matching feature rows (`FROM unit_features f WHERE …`). */
function featuresCondition(where: Conditions, filter: Used<'features'>, lead: boolean) {
  const { criteria, liveUnits } = filter;
  const params: Bindings = [];
  if (!lead) {
    const live = liveUnits ? ' AND u.deleted_at IS NULL' : '';
    const every = everyCriterion('u.id', criteria, params);
    where.add(
      `EXISTS (SELECT 1 FROM units u WHERE u.property_id = p.id${live} AND ${every})`,
      ...params,
    );
    return undefined;
  }
  const [first, ...rest] = criteria;
  const on = criterionOn('f', first!, params, false);
  const others = rest.length > 0 ? ` AND ${everyCriterion('f.unit_id', rest, params)}` : '';
  // Deleted units are few: probing the small partial index of deleted ones costs no
  // row read, where checking each matching unit's own row read millions of pages.
  const live = liveUnits
    ? ' AND NOT EXISTS (SELECT 1 FROM units d INDEXED BY units_deleted_idx WHERE d.id = f.unit_id AND d.deleted_at IS NOT NULL)'
    : '';
  const matching = `FROM unit_features f WHERE ${on}${others}${live}`;
  where.add(`p.id IN (SELECT f.property_id ${matching})`, ...params);
  return { sql: matching, params };
}

function conditionsOf(used: UsedFilter[], sort: SortKey[]) {
  const where = new Conditions();
  const driver = driverOf(used, sort);
  let featureMatch: Statement | undefined;
  for (const filter of used) {
    const lead = filter.name === driver;
    if (filter.on === 'column') columnCondition(where, filter, driver);
    else if (filter.on === 'units') unitsCondition(where, filter, lead);
    else if (filter.on === 'address') addressCondition(where, filter, lead);
    else featureMatch = featuresCondition(where, filter, lead);
  }
  return { where, driver, featureMatch };
}

/** The total as a sum over `property_counts`, for lists filtered on counted columns only. */
function countsSql(used: UsedFilter[]): Statement {
  const where = new Conditions();
  for (const filter of used) {
    if (filter.on !== 'column') continue;
    if (filter.op === 'in') where.add(`${filter.column} ${IN_JSON}`, JSON.stringify(filter.values));
    else
      for (const value of filter.values) where.add(`${filter.column} ${filter.op} ?`, bound(value));
  }
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
  /** A walk in an order writes change: its part B, merged with `page` (walk-order.ts). */
  changed?: Statement;
}

/** The two statements of a list request (exposed for the query-plan tests and doc). */
export function propertyListSql(filter: PropertyFilter, paging: ListPaging): PropertyListSql {
  const sort = sortKeysOf(filter.query.sort);
  const used = usedFilters(filter);
  const { where, driver, featureMatch } = conditionsOf(used, sort);
  const after = paging.keyset?.after ? afterSql(afterOf(sort, paging.keyset.after)) : undefined;
  if (featureMatch && where.parts.length === 1 && sort.length === 1) {
    return featuresOnlySql(featureMatch, sort[0]!.descending, paging, after);
  }
  const count = countsOnly(used)
    ? countsSql(used)
    : {
        sql: `SELECT count(*) AS total FROM ${from(driver)} ${where.sql}`,
        params: [...where.params],
      };
  const walkFrom = walksFrozen(sort) ? paging.keyset?.from : undefined;
  const changed =
    walkFrom === undefined
      ? undefined
      : changedSinceSql(
          where,
          sort,
          paging.keyset!.after,
          { from: walkFrom, owner: walkOwnerOf(filter) },
          paging.itemsPerPage,
        );
  // The position is a condition of the page only: the total counts the whole list.
  if (after) where.add(after.sql, ...after.params);
  if (walkFrom !== undefined) where.add(UNCHANGED_SINCE, walkFrom);
  const orderBy = sort
    .map((key) => `p.${key.column} ${key.descending ? 'DESC' : 'ASC'}`)
    .join(', ');
  return {
    page: {
      sql: `SELECT ${PROPERTY_COLUMNS} FROM ${from(driver)} ${where.sql} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
      params: [...where.params, paging.itemsPerPage, paging.offset],
    },
    count,
    ...(changed && { changed }),
  };
}

/** Without statistics SQLite may prefer (type, id) here; the composite serves both filters. */
const from = (driver: Driver) =>
  driver === 'cityIds' ? 'properties p INDEXED BY properties_city_type_idx' : 'properties p';

/**
 * A list filtered by unit features alone, in `_id` order: the matching
 * feature rows are walked in property order on the (name, value,
 * property_id, unit_id) index, so the page stops after its properties
 * instead of collecting every match first, and the total counts distinct
 * properties on that index without reading a property row.
 */
function featuresOnlySql(
  match: Statement,
  descending: boolean,
  paging: ListPaging,
  after: Statement | undefined,
): PropertyListSql {
  const direction = descending ? 'DESC' : 'ASC';
  // The position is on the property id, which the feature rows hold as `f.property_id`.
  const from = after ? `${match.sql} AND ${after.sql.replace('p.id', 'f.property_id')}` : match.sql;
  return {
    page: {
      sql: `SELECT ${PROPERTY_COLUMNS} FROM (SELECT DISTINCT f.property_id AS id ${from}
        ORDER BY f.property_id ${direction} LIMIT ? OFFSET ?) AS m
        JOIN properties p ON p.id = m.id ORDER BY p.id ${direction}`,
      params: [...match.params, ...(after?.params ?? []), paging.itemsPerPage, paging.offset],
    },
    count: {
      sql: `SELECT count(DISTINCT f.property_id) AS total ${match.sql}`,
      params: match.params,
    },
  };
}
