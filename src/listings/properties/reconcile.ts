import { type Steps, step } from '@/kernel/steps';
import type { ReconcileTables } from '@/listings/properties/tables';

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

/**
 * Recomputes totalUnits, rentableUnits, publishedUnits and published of one
 * chunk of properties (in id order) from their units, in one transaction, and
 * rewrites those that drifted (counters are derived from the
 * non-deleted units; a property is published when not archived and one of
 * its units is). Idempotent; the unit-counter-reconcile worker calls it
 * chunk after chunk so requests keep flowing in between.
 */
export function* reconcileChunk(t: ReconcileTables, chunk: ReconcileChunk): Steps<ReconcileResult> {
  const now = chunk.now ?? Date.now();
  const rows = yield* step(t.tallies(chunk.afterId ?? '', chunk.limit));
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
    const repair = {
      totalUnits: row.live,
      rentableUnits: row.rentable,
      publishedUnits: row.live_published,
      published: published === 1,
    };
    yield* step(t.repair(row.id, repair, now));
    repaired++;
  }
  return { scanned: rows.length, repaired, lastId: rows.at(-1)?.id ?? null };
}
