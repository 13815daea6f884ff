import { expect, test } from 'bun:test';
import { CITY_IDS } from '@/listings/cities';
import type { BulkPropertyInput } from '@/listings/properties/bulk';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { reconcileUnitCounters } from '@/listings/properties/sqlite-reconcile';
import { sqliteDatabase } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';
import { count } from './support';

const SQLITE_LISTINGS_SQL = 'the SQLite bulk insert and counter repair';

const input = (i: number, overrides: Partial<BulkPropertyInput> = {}): BulkPropertyInput => ({
  type: (['apartment', 'studio', 'roomShared', 'residence'] as const)[i % 4]!,
  ownerId: `owner-${i % 7}`,
  location: {
    addressLine1: `Street ${i}`,
    city: 'City',
    cityId: CITY_IDS[i % CITY_IDS.length]!,
    postalCode: String(10000 + i),
    latitude: 0,
    longitude: 0,
  },
  totalUnits: 5,
  rentableUnits: 3,
  ...overrides,
});

sqliteOnly.describe(SQLITE_LISTINGS_SQL, 'insertPropertiesBulk', () => {
  test('inserts properties with K units each, counters and counts derived', () => {
    const db = sqliteDatabase();
    const result = insertPropertiesBulk(
      db,
      Array.from({ length: 200 }, (_, i) => input(i)),
    );
    expect(result.properties).toBe(200);
    expect(result.units).toBe(1000);
    expect(result.ids).toHaveLength(200);
    expect([...result.ids].sort()).toEqual(result.ids);
    expect(count(db, 'properties')).toBe(200);
    expect(count(db, 'units')).toBe(1000);
    const row = db.$client
      .query(
        'SELECT total_units, rentable_units, published_units, units_counter, source, country FROM properties WHERE id = ?',
      )
      .get(result.ids[0]!);
    expect(row).toEqual({
      total_units: 5,
      rentable_units: 3,
      published_units: 0,
      units_counter: 5,
      source: 'null',
      country: 'ES',
    });
    const counted = db.$client.query('SELECT sum(properties) AS n FROM property_counts').get();
    expect(counted).toEqual({ n: 200 });
  });

  test('explicit units: published only when rentable and not archived', () => {
    const db = sqliteDatabase();
    const { ids } = insertPropertiesBulk(db, [
      input(0, {
        units: [
          { rentable: true, published: true },
          { rentable: false, published: true },
        ],
      }),
      input(1, { archived: true, units: [{ rentable: true, published: true }] }),
    ]);
    const rows = db.$client
      .query('SELECT published_units, published, archived FROM properties ORDER BY id')
      .all();
    expect(rows).toEqual([
      { published_units: 1, published: 1, archived: 0 },
      { published_units: 0, published: 0, archived: 1 },
    ]);
    expect(ids).toHaveLength(2);
  });

  test('all or nothing: a bad row writes nothing', () => {
    const db = sqliteDatabase();
    expect(() => insertPropertiesBulk(db, [input(0), input(1, { totalUnits: 31 })])).toThrow(
      RangeError,
    );
    expect(() =>
      insertPropertiesBulk(db, [
        input(2),
        input(3, { location: { ...input(3).location, cityId: 'atlantis' as 'madrid' } }),
      ]),
    ).toThrow(RangeError);
    expect(count(db, 'properties')).toBe(0);
    expect(count(db, 'units')).toBe(0);
  });
});

sqliteOnly.describe(SQLITE_LISTINGS_SQL, 'reconcileUnitCounters', () => {
  test('repairs drifted counters chunk by chunk and counts what it did', () => {
    const db = sqliteDatabase();
    const { ids } = insertPropertiesBulk(
      db,
      Array.from({ length: 5 }, (_, i) => input(i)),
    );
    // Corrupt by hand: wrong counters on #1 and #3, a unit published behind the counters' back on #4.
    db.$client.run('UPDATE properties SET total_units = 9, rentable_units = 0 WHERE id = ?', [
      ids[1]!,
    ]);
    db.$client.run('UPDATE properties SET published_units = 4, published = 1 WHERE id = ?', [
      ids[3]!,
    ]);
    db.$client.run(
      'UPDATE units SET published = 1 WHERE id = (SELECT id FROM units WHERE property_id = ? LIMIT 1)',
      [ids[4]!],
    );

    const first = reconcileUnitCounters(db, { afterId: null, limit: 2, now: 1 });
    expect(first).toEqual({ scanned: 2, repaired: 1, lastId: ids[1]! });
    const second = reconcileUnitCounters(db, { afterId: first.lastId, limit: 2, now: 1 });
    expect(second).toEqual({ scanned: 2, repaired: 1, lastId: ids[3]! });
    const third = reconcileUnitCounters(db, { afterId: second.lastId, limit: 2, now: 1 });
    expect(third).toEqual({ scanned: 1, repaired: 1, lastId: ids[4]! });
    expect(reconcileUnitCounters(db, { afterId: third.lastId, limit: 2 })).toEqual({
      scanned: 0,
      repaired: 0,
      lastId: null,
    });

    const rows = db.$client
      .query(
        'SELECT total_units, rentable_units, published_units, published FROM properties ORDER BY id',
      )
      .all();
    expect(rows).toEqual([
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 0, published: 0 },
      { total_units: 5, rentable_units: 3, published_units: 1, published: 1 },
    ]);
    // Counted cells follow the repaired columns (triggers).
    const published = db.$client
      .query('SELECT sum(properties) AS n FROM property_counts WHERE published = 1')
      .get();
    expect(published).toEqual({ n: 1 });
    expect(reconcileUnitCounters(db, { limit: 10 })).toEqual({
      scanned: 5,
      repaired: 0,
      lastId: ids[4]!,
    });
  });
});
