import { eq, sql } from 'drizzle-orm';
import type { PgTx } from '@/db/pg/client';
import { properties } from '@/db/pg/schema';
import type { ReconcileTables, Tally } from '@/listings/properties/tables';

/** The reconcile queries inside one PostgreSQL transaction (READ COMMITTED). */
export const postgresReconcileTables = (tx: PgTx): ReconcileTables => ({
  async tallies(afterId, limit) {
    // Lock the chunk first (unit writes lock their property the same way),
    // then count in a statement of its own: it sees every unit write
    // committed before the lock, and none can land until this commits.
    await tx.execute(
      sql`SELECT id FROM properties WHERE id > ${afterId} ORDER BY id LIMIT ${limit} FOR NO KEY UPDATE`,
    );
    const rows = await tx.execute<Record<keyof Tally, string | number>>(
      sql`SELECT p.id, p.total_units, p.rentable_units, p.published_units, p.published::int AS published,
         p.archived::int AS archived, count(u.id)::int AS live,
         count(u.id) FILTER (WHERE u.rentable)::int AS rentable,
         count(u.id) FILTER (WHERE u.published)::int AS live_published
       FROM (SELECT id, total_units, rentable_units, published_units, published, archived
             FROM properties WHERE id > ${afterId} ORDER BY id LIMIT ${limit}) AS p
       LEFT JOIN units u ON u.property_id = p.id AND u.deleted_at IS NULL
       GROUP BY p.id, p.total_units, p.rentable_units, p.published_units, p.published, p.archived
       ORDER BY p.id`,
    );
    return [...rows].map((row) => ({
      id: String(row.id),
      total_units: Number(row.total_units),
      rentable_units: Number(row.rentable_units),
      published_units: Number(row.published_units),
      published: Number(row.published),
      archived: Number(row.archived),
      live: Number(row.live),
      rentable: Number(row.rentable),
      live_published: Number(row.live_published),
    }));
  },
  async repair(id, repair, now) {
    await tx
      .update(properties)
      .set({ ...repair, updatedAt: now })
      .where(eq(properties.id, id));
  },
});
