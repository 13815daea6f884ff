import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { migratePostgres } from '@/db/pg/migrate';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';

/**
 * The hand-written SQL of migrations-pg/ does what SQLite's triggers do:
 * property_counts and cache_changes follow every write, audit_events refuses
 * updates, and the address substring search runs on the trigram index.
 */
describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL triggers and address search'), () => {
  let database: TestDatabase;
  let client: SQL;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migratePostgres(database.url);
    client = new SQL(database.url, { max: 1 });
  });

  afterAll(async () => {
    await client?.close();
    await database?.drop();
  });

  const insertProperty = (id: string, cityId: string, address: string) =>
    client`INSERT INTO properties (id, type, owner_id, address_line1, city, city_id, postal_code,
      country, latitude, longitude, address_search, total_units, rentable_units, units_counter,
      source, created_at, updated_at)
      VALUES (${id}, 'apartment', 'owner-1', ${address}, 'Madrid', ${cityId}, '28001', 'ES', 40.4,
      -3.7, ${address.toLowerCase()}, 1, 1, 1, 'inbound', 1, 1)`;

  const counts = () =>
    client<{ city_id: string; published: boolean; properties: number }[]>`
      SELECT city_id, published, properties FROM property_counts ORDER BY city_id, published`;

  test('happy: property_counts follows inserts, counted updates and deletes', async () => {
    await insertProperty('p1', 'madrid', 'Calle Mayor 1');
    await insertProperty('p2', 'madrid', 'Gran Vía 2');
    await insertProperty('p3', 'sevilla', 'Calle Sierpes 3');
    expect([...(await counts())]).toEqual([
      { city_id: 'madrid', published: false, properties: 2 },
      { city_id: 'sevilla', published: false, properties: 1 },
    ]);
    await client`UPDATE properties SET published = true WHERE id = 'p2'`;
    await client`DELETE FROM properties WHERE id = 'p3'`;
    expect([...(await counts())]).toEqual([
      { city_id: 'madrid', published: false, properties: 1 },
      { city_id: 'madrid', published: true, properties: 1 },
      { city_id: 'sevilla', published: false, properties: 0 },
    ]);
  });

  test('happy: every write to a cached table appends to cache_changes', async () => {
    const [before] = await client<
      { seq: string }[]
    >`SELECT coalesce(max(seq), 0) AS seq FROM cache_changes`;
    await client`UPDATE properties SET city_id = 'bilbao' WHERE id = 'p1'`;
    await client`INSERT INTO units (id, property_id, rentable, created_at, updated_at)
      VALUES ('u1', 'p1', true, 1, 1)`;
    await client`INSERT INTO unit_features (unit_id, position, property_id, applicability, category, name, value)
      VALUES ('u1', 0, 'p1', 'unit', 'comfort', 'balcony', 'yes')`;
    await client`UPDATE units SET deleted_at = 5 WHERE id = 'u1'`;
    const rows = await client<{ topic: string; key: string }[]>`
      SELECT topic, key FROM cache_changes WHERE seq > ${before!.seq} ORDER BY seq`;
    const us = String.fromCharCode(31);
    expect([...rows]).toEqual([
      {
        topic: 'property',
        key: ['p1', 'owner-1', 'madrid', 'apartment', 'p1', 'owner-1', 'bilbao', 'apartment'].join(
          us,
        ),
      },
      { topic: 'unit', key: 'p1' },
      { topic: 'feature', key: 'balcony' },
      { topic: 'unit', key: 'p1' },
      { topic: 'unit', key: 'p1' },
      { topic: 'feature', key: 'balcony' },
    ]);
  });

  test('happy: a multi-row write runs each counts and log trigger once, not once a row', async () => {
    const ids = ['m1', 'm2', 'm3'];
    const units = Array.from({ length: 30 }, (_, n) => `mu${n}`);
    const us = String.fromCharCode(31);
    const { calls, logged, counted } = await client.begin(async (tx) => {
      // Counted for this transaction alone (pg_stat_xact_user_functions).
      await tx`SET LOCAL track_functions = 'pl'`;
      const [before] = await tx<
        { seq: string }[]
      >`SELECT coalesce(max(seq), 0) AS seq FROM cache_changes`;
      await tx`INSERT INTO properties (id, type, owner_id, address_line1, city, city_id, postal_code,
        country, latitude, longitude, address_search, total_units, rentable_units, units_counter,
        source, created_at, updated_at)
        SELECT id, 'apartment', 'owner-2', 'Calle', 'Málaga', city, '29001', 'ES', 36.7, -4.4,
          'calle', 1, 1, 1, 'inbound', 1, 1
        FROM unnest(${ids}::text[], ${['malaga', 'malaga', 'cadiz']}::text[]) AS r(id, city)`;
      await tx`INSERT INTO units (id, property_id, rentable, created_at, updated_at)
        SELECT u, 'm1', true, 1, 1 FROM unnest(${units}::text[]) AS u`;
      await tx`INSERT INTO unit_features (unit_id, position, property_id, applicability, category, name, value)
        SELECT u, p, 'm1', 'unit', 'comfort', n, 'yes'
        FROM unnest(${['mu0', 'mu0', 'mu1', 'mu1']}::text[], ${[0, 1, 0, 1]}::int[],
          ${['lift', 'balcony', 'lift', 'balcony']}::text[]) AS f(u, p, n)`;
      await tx`DELETE FROM unit_features WHERE property_id = 'm1'`;
      await tx`DELETE FROM units WHERE property_id = 'm1'`;
      await tx`DELETE FROM properties WHERE id IN ('m2', 'm3')`;
      return {
        calls: Object.fromEntries(
          (
            await tx<{ funcname: string; calls: string }[]>`
              SELECT funcname, calls FROM pg_stat_xact_user_functions
              WHERE funcname IN ('cache_log', 'cache_log_rows', 'property_counts_follow',
                'property_counts_follow_rows')`
          ).map((row) => [row.funcname, Number(row.calls)]),
        ),
        logged: [
          ...(await tx<{ topic: string; key: string }[]>`
            SELECT topic, key FROM cache_changes WHERE seq > ${before!.seq} ORDER BY seq`),
        ],
        counted: [
          ...(await tx<{ city_id: string; properties: number }[]>`
            SELECT city_id, properties FROM property_counts WHERE city_id IN ('malaga', 'cadiz')
            ORDER BY city_id`),
        ],
      };
    });
    // Six statements: each one call of each statement trigger, however many rows.
    expect(calls).toEqual({ cache_log_rows: 6, property_counts_follow_rows: 2 });
    const property = (id: string, city: string) => ({
      topic: 'property',
      key: [id, 'owner-2', city, 'apartment'].join(us),
    });
    expect(logged.filter((row) => row.topic === 'property')).toEqual([
      property('m1', 'malaga'),
      property('m2', 'malaga'),
      property('m3', 'cadiz'),
      property('m2', 'malaga'),
      property('m3', 'cadiz'),
    ]);
    // One unit row a statement (its key is not read), one feature row a name.
    expect(logged.filter((row) => row.topic === 'unit')).toEqual([
      { topic: 'unit', key: 'm1' },
      { topic: 'unit', key: 'm1' },
    ]);
    expect(
      logged
        .filter((row) => row.topic === 'feature')
        .map((row) => row.key)
        .sort(),
    ).toEqual(['balcony', 'balcony', 'lift', 'lift']);
    expect(counted).toEqual([
      { city_id: 'cadiz', properties: 0 },
      { city_id: 'malaga', properties: 1 },
    ]);
  });

  test('error: an update of audit_events is refused (append-only)', async () => {
    await client`INSERT INTO audit_events (at, action, details) VALUES (1, 'sign_out', '{}')`;
    await expect(client`UPDATE audit_events SET action = 'sign_up'`).rejects.toThrow(/append-only/);
    await client`DELETE FROM audit_events`;
  });

  test('happy: the address substring search uses the trigram index', async () => {
    const found = await client<{ id: string }[]>`
      SELECT id FROM properties WHERE address_search LIKE ${'%mayor%'} ORDER BY id`;
    expect(found.map((row) => row.id)).toEqual(['p1']);
    await client.begin(async (tx) => {
      // A three-row table is read whole unless sequential scans are ruled out.
      await tx`SET LOCAL enable_seqscan = off`;
      const plan = await tx.unsafe<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN SELECT id FROM properties WHERE address_search LIKE '%mayor%'`,
      );
      expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain(
        'properties_address_search_trgm_idx',
      );
    });
  });
});
