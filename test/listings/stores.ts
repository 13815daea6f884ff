import { sql } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import { postgresListingsStore } from '@/listings/postgres-store';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { storesUnderTestOf } from '../support/stores-under-test';
import {
  count,
  type ListingsContext,
  listingsContext,
  type PropertySeed,
  propertySeed,
} from './support';

/**
 * The listings suites run once per store: each test's app serves the
 * property reads, the list and the creates from the store under test
 * through the production pipeline; the other listings writes (units,
 * archive, …) and the other domains stay on the app's own SQLite file.
 */
export type ListingsTestApp = ListingsContext & {
  /** Writes a property straight into the store's database (the list's factory); answers its id. */
  makeProperty(overrides?: PropertySeed): Promise<string>;
  /** A property's unit ids, in id order. */
  unitIdsOf(propertyId: string): Promise<string[]>;
  /** Soft-deletes a unit as DELETE …/units/{id} does, counters included. */
  deleteUnit(propertyId: string, unitId: string): Promise<void>;
  /** Rows of a query on the store's database (`?` placeholders on both). */
  query<T>(text: string, ...params: (string | number)[]): Promise<T[]>;
  /** The rows of a listings table in the store's database. */
  count(
    table: 'properties' | 'units' | 'unit_features' | 'events' | 'property_additional_data',
  ): Promise<number>;
  /** How many properties the owner has in the store. */
  ownedBy(ownerId: string): Promise<number>;
  /** The `property.created` events stored, by id: their resource ids. */
  createdEvents(): Promise<string[]>;
};

const stores = storesUnderTestOf<ListingsTestApp>({
  storesOn: (client) => ({ listings: postgresListingsStore(client) }),
  cachedOnPostgres: true,
  async sqlite(options) {
    const ctx = await listingsContext(options);
    const { $client } = ctx.db;
    return {
      ...ctx,
      makeProperty: async (overrides) =>
        insertPropertiesBulk(ctx.db, [propertySeed(overrides)]).ids[0]!,
      unitIdsOf: async (propertyId) =>
        $client
          .query<{ id: string }, [string]>('SELECT id FROM units WHERE property_id = ? ORDER BY id')
          .all(propertyId)
          .map((row) => row.id),
      async deleteUnit(propertyId, unitId) {
        const res = await ctx.request(
          'DELETE',
          `/listings/properties/${propertyId}/units/${unitId}`,
          { token: ctx.employee },
        );
        if (res.status !== 204) throw new Error(`unit delete failed: ${res.status}`);
      },
      query: async <T>(text: string, ...params: (string | number)[]) =>
        $client.query<T, (string | number)[]>(text).all(...params),
      count: async (table) => count(ctx.db, table),
      ownedBy: async (ownerId) =>
        $client
          .query<{ n: number }, [string]>('SELECT count(*) AS n FROM properties WHERE owner_id = ?')
          .get(ownerId)!.n,
      createdEvents: async () =>
        $client
          .query<{ id: string }, []>(
            "SELECT resource_id AS id FROM events WHERE type = 'property.created' ORDER BY id",
          )
          .all()
          .map((row) => row.id),
    };
  },
  async postgres(options, { client }) {
    const ctx = await listingsContext(options);
    const store = ctx.deps.stores.listings;
    const db = pgDatabase(client);
    const rows = async <T>(text: string, ...params: unknown[]) =>
      (await client.unsafe(text, params)) as T[];
    return {
      ...ctx,
      makeProperty: async (overrides) =>
        (await store.insertProperties([propertySeed(overrides)]))[0]!,
      unitIdsOf: async (propertyId) =>
        (
          await rows<{ id: string }>(
            'SELECT id FROM units WHERE property_id = $1 ORDER BY id',
            propertyId,
          )
        ).map((row) => row.id),
      async deleteUnit(propertyId, unitId) {
        await db.transaction(async (tx) => {
          await tx.execute(
            sql`UPDATE units SET deleted_at = ${Date.now()}, published = false WHERE id = ${unitId}`,
          );
          await tx.execute(
            sql`UPDATE properties SET total_units = c.total, rentable_units = c.rentable,
                 published_units = c.published, published = (NOT archived AND c.published > 0)
               FROM (SELECT count(*) AS total, count(*) FILTER (WHERE rentable) AS rentable,
                       count(*) FILTER (WHERE published) AS published
                     FROM units WHERE property_id = ${propertyId} AND deleted_at IS NULL) AS c
               WHERE id = ${propertyId}`,
          );
        });
      },
      query: async <T>(text: string, ...params: (string | number)[]) => {
        let n = 0;
        return rows<T>(
          text.replace(/\?/g, () => `$${++n}`),
          ...params,
        );
      },
      count: async (table) =>
        Number((await rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n),
      ownedBy: async (ownerId) =>
        Number(
          (
            await rows<{ n: number }>(
              'SELECT count(*)::int AS n FROM properties WHERE owner_id = $1',
              ownerId,
            )
          )[0]!.n,
        ),
      createdEvents: async () =>
        (
          await rows<{ id: string }>(
            "SELECT resource_id AS id FROM events WHERE type = 'property.created' ORDER BY id",
          )
        ).map((row) => row.id),
    };
  },
});

/** SQLite, then PostgreSQL. */
export const storesUnderTest = stores.both;
