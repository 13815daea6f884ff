import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { bunClientOf, type PgTx } from '@/db/pg/client';
import { unitFeatures, units } from '@/db/pg/schema';
import { appendEvents } from '@/events/postgres-outbox';
import { holdsNul } from '@/kernel/nul';
import { selectRecords } from '@/listings/properties/postgres-list';
import type { UnitTables } from '@/listings/units/tables';
import { toUnit, type UnitRecord } from './representation';
import type { UnitFeature } from './schemas';

const UNIT = {
  id: units.id,
  property_id: units.propertyId,
  rentable: sql<number>`${units.rentable}::int`.mapWith(Number),
  published: sql<number>`${units.published}::int`.mapWith(Number),
  deleted_at: units.deletedAt,
};

/**
 * The unit queries inside one PostgreSQL transaction (READ COMMITTED).
 * With `forWrite`, the property row is locked (`FOR NO KEY UPDATE`) when
 * read: unit writes of one property run one after the other, so the live
 * count, the 30-unit limit and the counters each see the writes before.
 */
export const postgresUnitTables = (tx: PgTx, forWrite: boolean): UnitTables => ({
  async property(id) {
    if (holdsNul(id)) return null;
    const lock = forWrite ? ' FOR NO KEY UPDATE' : '';
    const [row] = await selectRecords(bunClientOf(tx), `WHERE id = $1${lock}`, [id]);
    return row ?? null;
  },
  async unit(propertyId, unitId) {
    if (holdsNul(unitId)) return null;
    const [row] = await tx
      .select(UNIT)
      .from(units)
      .where(and(eq(units.id, unitId), eq(units.propertyId, propertyId)));
    return (row as UnitRecord | undefined) ?? null;
  },
  async liveUnits(propertyId) {
    const [row] = await tx
      .select({ n: count() })
      .from(units)
      .where(and(eq(units.propertyId, propertyId), isNull(units.deletedAt)));
    return row?.n ?? 0;
  },
  async unitRowsUpTo(propertyId, limit) {
    const [row] = await tx.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM units WHERE property_id = ${propertyId} LIMIT ${limit}) AS rows`,
    );
    return Number(row?.n ?? 0);
  },
  async pageOfUnits(propertyId, includeDeleted, paging) {
    const where = and(
      eq(units.propertyId, propertyId),
      includeDeleted ? undefined : isNull(units.deletedAt),
    );
    const [counted] = await tx.select({ n: count() }).from(units).where(where);
    const rows = await tx
      .select(UNIT)
      .from(units)
      .where(where)
      .orderBy(asc(units.id))
      .limit(paging.itemsPerPage)
      .offset(paging.offset);
    return { total: counted?.n ?? 0, rows: rows as UnitRecord[] };
  },
  async insertUnit(id, propertyId, rentable, now) {
    await tx
      .insert(units)
      .values({ id, propertyId, rentable, published: false, createdAt: now, updatedAt: now });
  },
  async updateUnit(id, rentable, published, now) {
    await tx.update(units).set({ rentable, published, updatedAt: now }).where(eq(units.id, id));
  },
  async deleteUnit(id, now) {
    await tx
      .update(units)
      .set({ deletedAt: now, published: false, updatedAt: now })
      .where(eq(units.id, id));
  },
  async writeFeatures(unitId, propertyId, features) {
    await tx.delete(unitFeatures).where(eq(unitFeatures.unitId, unitId));
    if (features.length === 0) return;
    await tx
      .insert(unitFeatures)
      .values(features.map((f, position) => ({ unitId, position, propertyId, ...f })));
  },
  async refreshCounters(propertyId, now) {
    await tx.execute(
      sql`UPDATE properties SET total_units = c.total, rentable_units = c.rentable,
         published_units = c.published, published = (NOT archived AND c.published > 0),
         updated_at = ${now}
       FROM (SELECT count(*)::int AS total, count(*) FILTER (WHERE rentable)::int AS rentable,
               count(*) FILTER (WHERE published)::int AS published
             FROM units WHERE property_id = ${propertyId} AND deleted_at IS NULL) AS c
       WHERE id = ${propertyId}`,
    );
  },
  async units(ids) {
    if (ids.length === 0) return [];
    const rows = (await tx
      .select(UNIT)
      .from(units)
      .where(inArray(units.id, [...ids]))
      .orderBy(asc(units.id))) as UnitRecord[];
    const features = await tx
      .select({
        unitId: unitFeatures.unitId,
        applicability: unitFeatures.applicability,
        category: unitFeatures.category,
        name: unitFeatures.name,
        value: unitFeatures.value,
      })
      .from(unitFeatures)
      .where(inArray(unitFeatures.unitId, [...ids]))
      .orderBy(asc(unitFeatures.unitId), asc(unitFeatures.position));
    const byUnit = new Map<string, UnitFeature[]>();
    for (const { unitId, ...feature } of features) {
      byUnit.set(unitId, [...(byUnit.get(unitId) ?? []), feature]);
    }
    return rows.map((row) => toUnit(row, byUnit.get(row.id) ?? []));
  },
  appendEvents: (batch) => appendEvents(tx, batch),
});
