import { expect, spyOn, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { bunClientOf, pgDatabase } from '@/db/pg/client';
import { insertRows } from '@/db/pg/insert-rows';
import { events, properties, units } from '@/db/pg/schema';
import { suiteDatabases } from '../support/postgres';

/**
 * `insertRows` writes what drizzle's `insert().values()` writes (the same
 * columns, defaults, driver mappings) without building SQL through
 * drizzle, inside the drizzle transaction it is given.
 */
const databases = suiteDatabases();

const property = (
  id: string,
  overrides: Partial<typeof properties.$inferInsert> = {},
): typeof properties.$inferInsert => ({
  id,
  type: 'studio',
  ownerId: 'owner-1',
  addressLine1: 'Calle Mayor 1',
  addressLine2: null,
  city: 'Madrid',
  cityId: 'madrid',
  neighbourhoodId: null,
  postalCode: '28013',
  country: 'ES',
  latitude: 40.4,
  longitude: -3.7,
  addressSearch: 'calle mayor 1',
  totalUnits: 1,
  rentableUnits: 1,
  unitsCounter: 1,
  yearOfConstruction: null,
  source: 'null',
  createdAt: 1_790_000_000_123,
  updatedAt: 1_790_000_000_123,
  ...overrides,
});

databases.describe('insertRows', () => {
  test('rows read back as drizzle wrote them: defaults, booleans, big numbers, dates, NULLs', async () => {
    const { client } = await databases.withClient();
    const db = pgDatabase(client);
    await db.transaction(async (tx) => {
      await tx.insert(properties).values(property('by-drizzle', { verified: true }));
      await insertRows(tx, properties, [property('by-rows', { verified: true })], 500);
      await insertRows(
        tx,
        events,
        [
          {
            type: 'property.created',
            occurredAt: new Date(1_790_000_000_456),
            resourceKind: 'property',
            resourceId: 'by-rows',
            ownerId: 'owner-1',
            data: '{"a":1}',
          },
        ],
        1000,
      );
    });
    const [byDrizzle] = await db.select().from(properties).where(eq(properties.id, 'by-drizzle'));
    const [byRows] = await db.select().from(properties).where(eq(properties.id, 'by-rows'));
    const { seq: _drizzleSeq, id: _a, ...drizzleRest } = byDrizzle!;
    const { seq: rowsSeq, id: _b, ...rowsRest } = byRows!;
    expect(rowsRest).toEqual(drizzleRest);
    expect(rowsSeq).toBeGreaterThan(0);
    expect(rowsRest).toMatchObject({ verified: true, published: false, publishedUnits: 0 });
    const [event] = await db.select().from(events);
    expect(event!.occurredAt).toEqual(new Date(1_790_000_000_456));
    expect(event!.data).toBe('{"a":1}');
  });

  test('chunks of rows, all in the transaction: a failing chunk rolls back the ones before', async () => {
    const { client } = await databases.withClient();
    const db = pgDatabase(client);
    const rows = Array.from({ length: 7 }, (_, i) => property(`p-${i}`));
    rows.push(property('p-0')); // the same id again: the last chunk fails
    const built = spyOn(PgDialect.prototype, 'sqlToQuery');
    try {
      await expect(db.transaction((tx) => insertRows(tx, properties, rows, 3))).rejects.toThrow();
      expect(built).not.toHaveBeenCalled();
    } finally {
      built.mockRestore();
    }
    expect(await db.$count(properties)).toBe(0);
    await db.transaction((tx) => insertRows(tx, properties, rows.slice(0, 7), 3));
    expect(await db.$count(properties)).toBe(7);
    await db.transaction((tx) =>
      insertRows(
        tx,
        units,
        [{ id: 'u-1', propertyId: 'p-1', rentable: true, createdAt: 1, updatedAt: 1 }],
        500,
      ),
    );
    expect((await db.select().from(units))[0]).toMatchObject({ published: false, deletedAt: null });
  });

  test('bunClientOf is the transaction: what it writes is gone after a rollback', async () => {
    const { client } = await databases.withClient();
    const db = pgDatabase(client);
    await expect(
      db.transaction(async (tx) => {
        await bunClientOf(tx).unsafe("INSERT INTO plans (id, name, slug) VALUES (9, 'x', 'x')");
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await client.unsafe('SELECT count(*)::int AS n FROM plans')).toEqual([{ n: 0 }]);
  });
});
