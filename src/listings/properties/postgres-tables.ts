import { and, eq } from 'drizzle-orm';
import { auditRowOf } from '@/audit/record';
import type { PgTx } from '@/db/pg/client';
import {
  auditEvents,
  neighbourhoods,
  properties,
  propertyAdditionalData,
  units,
} from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import type { PropertyTables } from '@/listings/properties/tables';
import { postgresUnitTables } from '@/listings/units/postgres-tables';

/** The property-write queries inside one PostgreSQL transaction, the property row locked. */
export const postgresPropertyTables = (tx: PgTx, forWrite = true): PropertyTables => ({
  ...postgresUnitTables(tx, forWrite),
  async updateProperty(id, changes) {
    await tx.update(properties).set(changes).where(eq(properties.id, id));
  },
  async unpublishUnits(propertyId, now) {
    const rows = await tx
      .update(units)
      .set({ published: false, updatedAt: now })
      .where(and(eq(units.propertyId, propertyId), eq(units.published, true)))
      .returning({ id: units.id });
    return rows.map((row) => row.id);
  },
  async neighbourhoodCity(id) {
    if (holdsNul(id)) return null;
    // FOR SHARE: a catalogue write moving the entry to another city waits
    // for this assignment, then finds the entry in use (and the reverse).
    const [row] = await tx
      .select({ cityId: neighbourhoods.cityId })
      .from(neighbourhoods)
      .where(eq(neighbourhoods.id, id))
      .for('share');
    return row?.cityId ?? null;
  },
  async recordAudit(context, entry) {
    await tx.insert(auditEvents).values(auditRowOf(context, entry));
  },
  async storedData(id) {
    const [row] = await tx
      .select({ data: propertyAdditionalData.data })
      .from(propertyAdditionalData)
      .where(eq(propertyAdditionalData.propertyId, id));
    return row?.data ?? null;
  },
  async saveData(id, json, now) {
    await tx
      .insert(propertyAdditionalData)
      .values({ propertyId: id, data: json, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: propertyAdditionalData.propertyId,
        set: { data: json, updatedAt: now },
      });
  },
  async counter(id) {
    if (holdsNul(id)) return null;
    const [row] = await tx
      .select({ unitsCounter: properties.unitsCounter, ownerId: properties.ownerId })
      .from(properties)
      .where(eq(properties.id, id));
    return row ?? null;
  },
  async setCounter(id, counter, now) {
    if (holdsNul(id)) return false;
    const changed = await tx
      .update(properties)
      .set({ unitsCounter: counter, updatedAt: now })
      .where(eq(properties.id, id))
      .returning({ id: properties.id });
    return changed.length > 0;
  },
});
