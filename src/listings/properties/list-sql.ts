import { type Bindings, Conditions } from '@/db/where';
import { PROPERTY_COLUMNS } from '@/listings/properties/representation';
import type { FeatureCriterion } from '@/listings/query';
import { afterOf, afterSql } from './list-cursor';
import {
  type Driver,
  driverOf,
  type ListPaging,
  type PropertyFilter,
  type SortKey,
  sortKeysOf,
} from './list-plan';
import type { PropertyListQuery } from './list-query';
import { changedSinceSql, UNCHANGED_SINCE, walksFrozen } from './walk-order';

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
  if (query.cityIds?.length === 1) {
    // One city: an equality, so the (city_id, type, id) index also gives the order.
    where.add(`${lead('cityIds')}p.city_id = ?`, query.cityIds[0]!);
  } else if (query.cityIds) {
    where.add(`${lead('cityIds')}p.city_id ${IN_JSON}`, JSON.stringify(query.cityIds));
  }
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
export function countsOnly(filter: PropertyFilter): boolean {
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
  /** A walk in an order writes change: its part B, merged with `page` (walk-order.ts). */
  changed?: Statement;
}

/** The two statements of a list request (exposed for the query-plan tests and doc). */
export function propertyListSql(filter: PropertyFilter, paging: ListPaging): PropertyListSql {
  const sort = sortKeysOf(filter.query.sort);
  const { where, driver, featureMatch } = conditionsOf(filter, sort);
  const after = paging.keyset?.after ? afterSql(afterOf(sort, paging.keyset.after)) : undefined;
  if (featureMatch && where.parts.length === 1 && sort.length === 1) {
    return featuresOnlySql(featureMatch, sort[0]!.descending, paging, after);
  }
  const count = countsOnly(filter)
    ? countsSql(filter.query)
    : {
        sql: `SELECT count(*) AS total FROM ${from(driver)} ${where.sql}`,
        params: [...where.params],
      };
  const walkFrom = walksFrozen(sort) ? paging.keyset?.from : undefined;
  const changed =
    walkFrom === undefined
      ? undefined
      : changedSinceSql(where, sort, paging.keyset!.after, walkFrom, paging.itemsPerPage);
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
