import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { ensureVisible } from '@/listings/access';
import type {
  MultiListingUnit,
  MultiListingUnitQuery,
} from '@/listings/multi-listing-units/schemas';
import type { Paging } from '@/listings/paging';
import type { PropertyTables } from '@/listings/properties/operations';
import { many, one } from '@/listings/sqlite-statements';

const COLUMNS = 'p.id, p.units_counter AS unitsCounter';

/**
 * GET /multi-listing-units: counters in property id order, filtered by `ids`,
 * a customer's limited to its own properties. Archived properties keep theirs.
 * On SQLite.
 */
export function listCounters(
  db: Db,
  query: MultiListingUnitQuery,
  scopeOwner: string | null,
  paging: Paging,
) {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (scopeOwner !== null) {
    where.push('p.owner_id = ?');
    params.push(scopeOwner);
  }
  if (query.ids) {
    where.push(`${scopeOwner === null ? '' : '+'}p.id IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(query.ids));
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  // Every property has a counter: unfiltered, the total is the property count (property_counts).
  const total =
    where.length === 0
      ? one<{ total: number }>(
          db,
          'SELECT coalesce(sum(properties), 0) AS total FROM property_counts',
        )!.total
      : one<{ total: number }>(
          db,
          `SELECT count(*) AS total FROM properties p ${clause}`,
          ...params,
        )!.total;
  const rows =
    paging.offset < total
      ? many<MultiListingUnit>(
          db,
          `SELECT ${COLUMNS} FROM properties p ${clause} ORDER BY p.id LIMIT ? OFFSET ?`,
          ...params,
          paging.itemsPerPage,
          paging.offset,
        )
      : [];
  return { total, rows };
}

/** GET /multi-listing-units/{id}: 404 for a property the caller may not see. */
export const getCounter = (id: string, caller: Caller | null) =>
  function* (t: PropertyTables): Steps<MultiListingUnit> {
    const row = yield* step(t.counter(id));
    const visible = ensureVisible(row && { owner_id: row.ownerId, ...row }, caller);
    return { id, unitsCounter: visible.unitsCounter };
  };

/** PUT /multi-listing-units/{id} (employees; the route refuses customers with 403). */
export const setCounter = (id: string, counter: number, now: number) =>
  function* (t: PropertyTables): Steps<void> {
    if (!(yield* step(t.setCounter(id, counter, now)))) throw fail('multi_listing_unit.not_found');
    const row = yield* step(t.counter(id));
    if (!row) return;
    const event = {
      type: 'multi_listing_counter.updated' as const,
      resource: { kind: 'multi_listing_counter' as const, id },
      ownerId: row.ownerId,
      data: { id, unitsCounter: row.unitsCounter },
    };
    yield* step(t.appendEvents([{ event, now }]));
  };
