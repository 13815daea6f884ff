import { beforeAll, describe, expect, test } from 'bun:test';
import type { SQL } from 'bun';
import { ReadCache } from '@/db/read-cache';
import { postgresListingsStore } from '@/listings/postgres-store';
import { countedDatabaseForSuite } from '../support/pg-wire';
import { pgSuite, postgresAvailable } from '../support/postgres';
import { type ListingsContext, listingsContext, propertyBody } from './support';

/**
 * The statements a create sends PostgreSQL, counted on the wire: BEGIN, the
 * owner's lock, one statement writing the properties and their units
 * (returning the rows the events are made of), the event
 * append (its lock taken in the insert), COMMIT. Creates arriving together share them
 * (the group commit).
 */
describe.skipIf(!postgresAvailable)(pgSuite('creates on PostgreSQL, statements'), () => {
  // One connection, so every create finds the statements the ones before it prepared there.
  const { wire, pool: poolOf } = countedDatabaseForSuite(1);
  let pool: SQL;
  let ctx: ListingsContext;

  beforeAll(async () => {
    pool = poolOf();
    ctx = await listingsContext({
      stores: { listings: postgresListingsStore(pool) },
      readCache: new ReadCache({ postgres: pool, enabled: false }),
    });
  });

  const create = (n: number) =>
    ctx.request('POST', '/listings/properties', {
      body: propertyBody({ totalUnits: n }),
      token: ctx.employee,
    });

  test('a create is five statements, prepared once whatever its unit count, and creates sent together share them', async () => {
    expect((await create(3)).status).toBe(201);
    const before = wire.counts();
    const alone = await wire.statementsDuring(async () => {
      expect((await create(5)).status).toBe(201);
    });
    const together = await wire.statementsDuring(async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => create(n + 1)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
    });
    // BEGIN, the owner's lock, properties + units returning the records, the events' lock with their insert, COMMIT.
    expect({ alone, together }).toEqual({ alone: 5, together: 5 });
    expect(wire.counts().parses).toBe(before.parses);
    const [row] = await pool.unsafe<{ units: number; events: number }[]>(
      `SELECT (SELECT count(*)::int FROM units) AS units,
        (SELECT count(*)::int FROM events WHERE type = 'property.created') AS events`,
    );
    expect(row).toEqual({ units: 3 + 5 + 36, events: 10 });
  });

  test('a create of 30 units tells the read caches with two change rows, not one a unit', async () => {
    const [before] = await pool.unsafe<{ seq: string }[]>(
      'SELECT coalesce(max(seq), 0) AS seq FROM cache_changes',
    );
    const created = await create(30);
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').pop()!;
    const logged = await pool.unsafe<{ topic: string; key: string }[]>(
      'SELECT topic, key FROM cache_changes WHERE seq > $1 ORDER BY seq',
      [before!.seq],
    );
    expect(logged.map(({ topic, key }) => [topic, key.split(String.fromCharCode(31))[0]])).toEqual([
      ['property', id],
      ['unit', id],
    ]);
  });
});
