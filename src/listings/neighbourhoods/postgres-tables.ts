import { asc, eq, sql } from 'drizzle-orm';
import type { PgDb, PgTx } from '@/db/pg/client';
import { neighbourhoods, properties } from '@/db/pg/schema';
import { appendEvents } from '@/events/postgres-outbox';
import { holdsNul } from '@/kernel/nul';
import type { NeighbourhoodTables } from '@/listings/neighbourhoods/tables';
import type { Neighbourhood, NeighbourhoodBody } from './schemas';

/** GET /neighbourhoods[?cityId=] on PostgreSQL: the catalogue, by city then name. */
export async function listNeighbourhoodsOn(
  db: PgDb,
  cityId: string | undefined,
): Promise<Neighbourhood[]> {
  if (cityId !== undefined && holdsNul(cityId)) return [];
  const rows = await db
    .select({ id: neighbourhoods.id, cityId: neighbourhoods.cityId, name: neighbourhoods.name })
    .from(neighbourhoods)
    .where(cityId === undefined ? undefined : eq(neighbourhoods.cityId, cityId))
    .orderBy(asc(neighbourhoods.cityId), asc(neighbourhoods.name), asc(neighbourhoods.id));
  // City ids are written through the CityId schema only.
  return rows as Neighbourhood[];
}

/** GET /neighbourhoods/{id} on PostgreSQL: one entry, undefined when there is none. */
export async function findNeighbourhoodOn(
  db: PgDb,
  id: string,
): Promise<Neighbourhood | undefined> {
  const [row] = await db
    .select({ id: neighbourhoods.id, cityId: neighbourhoods.cityId, name: neighbourhoods.name })
    .from(neighbourhoods)
    .where(eq(neighbourhoods.id, id));
  // City ids are written through the CityId schema only.
  return row as Neighbourhood | undefined;
}

/** The catalogue queries inside one PostgreSQL transaction (READ COMMITTED). */
export const postgresNeighbourhoodTables = (tx: PgTx): NeighbourhoodTables => ({
  async entry(id) {
    // FOR UPDATE: an assignment to this entry (which reads it FOR SHARE) waits
    // for this write, then sees the entry's new city.
    const [row] = await tx
      .select({ cityId: neighbourhoods.cityId, name: neighbourhoods.name })
      .from(neighbourhoods)
      .where(eq(neighbourhoods.id, id))
      .for('update');
    return (row as NeighbourhoodBody | undefined) ?? null;
  },
  async inUse(id) {
    const found = await tx
      .select({ one: sql`1` })
      .from(properties)
      .where(eq(properties.neighbourhoodId, id))
      .limit(1);
    return found.length > 0;
  },
  async upsert(id, body, now) {
    await tx
      .insert(neighbourhoods)
      .values({ id, cityId: body.cityId, name: body.name, updatedAt: now })
      .onConflictDoUpdate({
        target: neighbourhoods.id,
        set: { cityId: body.cityId, name: body.name, updatedAt: now },
      });
  },
  appendEvents: (batch) => appendEvents(tx, batch),
});
