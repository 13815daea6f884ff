import type { Db } from '@/db/sqlite/client';
import { runNow } from '@/kernel/steps';
import type { ReconcileTables, Tally } from '@/listings/properties/tables';
import { exec, many, writeTransaction } from '@/listings/sqlite-statements';
import { type ReconcileChunk, type ReconcileResult, reconcileChunk } from './reconcile';

const sqliteReconcileTables = (db: Db): ReconcileTables => ({
  tallies: (afterId, limit) =>
    many<Tally>(
      db,
      `SELECT p.id, p.total_units, p.rentable_units, p.published_units, p.published, p.archived,
         count(u.id) AS live, coalesce(sum(u.rentable), 0) AS rentable,
         coalesce(sum(u.published), 0) AS live_published
       FROM (SELECT id, total_units, rentable_units, published_units, published, archived
             FROM properties WHERE id > ? ORDER BY id LIMIT ?) AS p
       LEFT JOIN units u ON u.property_id = p.id AND u.deleted_at IS NULL
       GROUP BY p.id ORDER BY p.id`,
      afterId,
      limit,
    ),
  repair(id, repair, now) {
    exec(
      db,
      `UPDATE properties SET total_units = ?, rentable_units = ?, published_units = ?,
         published = ?, updated_at = ? WHERE id = ?`,
      repair.totalUnits,
      repair.rentableUnits,
      repair.publishedUnits,
      repair.published ? 1 : 0,
      now,
      id,
    );
  },
});

/** One chunk on SQLite, in its own write transaction (`reconcileChunk`). */
export const reconcileUnitCounters = (db: Db, chunk: ReconcileChunk): ReconcileResult =>
  writeTransaction(db, () => runNow(reconcileChunk(sqliteReconcileTables(db), chunk)));
