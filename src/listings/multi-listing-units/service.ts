import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import { fail } from '@/kernel/errors';
import { ensureVisible } from '@/listings/access';
import { counterEvent } from '@/listings/events';
import type {
  MultiListingUnit,
  MultiListingUnitQuery,
} from '@/listings/multi-listing-units/schemas';
import type { Paging } from '@/listings/paging';
import { exec, many, one, writeTransaction } from '@/listings/sql';

const COLUMNS = 'p.id, p.units_counter AS unitsCounter';

/**
 * GET /multi-listing-units: counters in property id order, filtered by `ids`,
 * a customer's limited to its own properties. Archived properties keep theirs.
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

const BY_ID = `SELECT ${COLUMNS}, p.owner_id FROM properties p WHERE p.id = ?`;

export function getCounter(db: Db, id: string, caller: Caller | null): MultiListingUnit {
  const { owner_id: _, ...counter } = ensureVisible(
    one<MultiListingUnit & { owner_id: string }>(db, BY_ID, id),
    caller,
  );
  return counter;
}

/** PUT /multi-listing-units/{id} (employees; the route refuses customers with 403). */
export function setCounter(db: Db, id: string, counter: number, now: number) {
  writeTransaction(db, () => {
    const changed = exec(
      db,
      'UPDATE properties SET units_counter = ?, updated_at = ? WHERE id = ?',
      counter,
      now,
      id,
    );
    if (changed === 0) throw fail('multi_listing_unit.not_found');
    counterEvent(db, id, now);
  });
}
