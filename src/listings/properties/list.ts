import type { Db } from '@/db/client';
import type { ResponseMemo } from '@/db/response-memo';
import { halCollection, type Paging, pagingOf } from '@/listings/paging';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import { parseListQuery } from '@/listings/query';
import { many, memoUntilWrite, one } from '@/listings/sql';
import type { PropertyFilter } from './list-plan';
import { PROPERTY_LIST_SHAPE, PropertyListQuery } from './list-query';
import { countsOnly, propertyListSql } from './list-sql';

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
