import type { Db } from '@/db/sqlite/client';
import type { Paging } from '@/listings/paging';
import { many, one } from '@/listings/sqlite-statements';
import type { MultiListingUnit, MultiListingUnitQuery } from './schemas';

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
