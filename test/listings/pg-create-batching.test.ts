import { describe, expect, test } from 'bun:test';
import { postgresListingsStore } from '@/listings/postgres-store';
import { propertyToCreate } from '@/listings/properties/operations';
import type { PropertyCreate } from '@/listings/properties/schemas';
import { migratedDatabaseForSuite, pgSuite, postgresAvailable } from '../support/postgres';
import { propertyBody } from './support';

/**
 * Creates on PostgreSQL wait on one another's locks (the owner's), so an
 * instance keeps two create transactions under way at most: creates
 * arriving while both wait go together in the next one instead of each
 * opening a transaction of its own that would only wait too.
 */
describe.skipIf(!postgresAvailable)(pgSuite('creates on PostgreSQL, batching'), () => {
  const database = migratedDatabaseForSuite(10);
  const caller = { sub: 'employee-1', aud: 'employee' as const };
  const createOf = () => ({
    row: propertyToCreate(propertyBody() as PropertyCreate, {
      caller,
      source: 'outbound',
      now: Date.now(),
    }),
    counted: false,
  });
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  test('creates submitted one turn apart while two transactions wait share a third', async () => {
    const pool = database.client();
    const store = postgresListingsStore(pool);
    const owner = createOf().row.ownerId;
    // Another session holds the owner's lock: every create transaction waits on it.
    const holder = await pool.reserve();
    const waiting = async () => {
      const [row] = await pool.unsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event = 'advisory'`,
      );
      return row!.n;
    };
    try {
      await holder`SELECT pg_advisory_lock(hashtextextended(${owner}, 0))`;
      const created: Promise<string>[] = [];
      for (let n = 1; n <= 6; n++) {
        created.push(store.createProperty(createOf(), 10_000));
        // Flushed on its own turn: a batch of one, unless it has to wait.
        await turn();
        if (n <= 2) while ((await waiting()) < n) await turn();
      }
      expect(await waiting()).toBe(2);
      await holder`SELECT pg_advisory_unlock(hashtextextended(${owner}, 0))`;
      const ids = await Promise.all(created);
      const [row] = await pool.unsafe<{ transactions: number }[]>(
        `SELECT count(DISTINCT xid)::int AS transactions FROM cache_changes
         WHERE topic = 'property' AND split_part(key, chr(31), 1) = ANY($1::text[])`,
        [ids],
      );
      expect(row!.transactions).toBe(3);
    } finally {
      holder.release();
    }
  });
});
