import type { Db } from '@/db/client';
import { exec, many, writeTransaction } from '@/listings/sql';

export interface ReconcileChunk {
  /** Start after this property id (exclusive); omit or null to start from the first. */
  afterId?: string | null;
  /** Properties per chunk (one transaction each). */
  limit: number;
  /** Written to `updated_at` of repaired properties; defaults to now. */
  now?: number;
}

export interface ReconcileResult {
  scanned: number;
  repaired: number;
  /** Id of the last property scanned: the next chunk's `afterId`; null when none was left. */
  lastId: string | null;
}

interface Tally {
  id: string;
  total_units: number;
  rentable_units: number;
  published_units: number;
  published: number;
  archived: number;
  live: number;
  rentable: number;
  live_published: number;
}

/**
 * Recomputes totalUnits, rentableUnits, publishedUnits and published of one
 * chunk of properties (in id order) from their units, in one transaction, and
 * rewrites those that drifted (counters are derived from the
 * non-deleted units; a property is published when not archived and one of
 * its units is). Idempotent; the unit-counter-reconcile worker calls it
 * chunk after chunk so requests keep flowing in between.
 */
export function reconcileUnitCounters(db: Db, chunk: ReconcileChunk): ReconcileResult {
  const now = chunk.now ?? Date.now();
  return writeTransaction(db, () => {
    const rows = many<Tally>(
      db,
      `SELECT p.id, p.total_units, p.rentable_units, p.published_units, p.published, p.archived,
         count(u.id) AS live, coalesce(sum(u.rentable), 0) AS rentable,
         coalesce(sum(u.published), 0) AS live_published
       FROM (SELECT id, total_units, rentable_units, published_units, published, archived
             FROM properties WHERE id > ? ORDER BY id LIMIT ?) AS p
       LEFT JOIN units u ON u.property_id = p.id AND u.deleted_at IS NULL
       GROUP BY p.id ORDER BY p.id`,
      chunk.afterId ?? '',
      chunk.limit,
    );
    let repaired = 0;
    for (const row of rows) {
      const published = row.archived === 0 && row.live_published > 0 ? 1 : 0;
      if (
        row.total_units === row.live &&
        row.rentable_units === row.rentable &&
        row.published_units === row.live_published &&
        row.published === published
      ) {
        continue;
      }
      exec(
        db,
        `UPDATE properties SET total_units = ?, rentable_units = ?, published_units = ?,
           published = ?, updated_at = ? WHERE id = ?`,
        row.live,
        row.rentable,
        row.live_published,
        published,
        now,
        row.id,
      );
      repaired++;
    }
    return { scanned: rows.length, repaired, lastId: rows.at(-1)?.id ?? null };
  });
}
