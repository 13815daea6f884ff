import { describe, expect, test } from 'bun:test';
import { ReadCache } from '@/db/read-cache';
import { postgresListingsStore } from '@/listings/postgres-store';
import { migratedDatabaseForSuite, pgSuite, postgresAvailable } from '../support/postgres';
import { listingsContext, postProperty } from './support';

/**
 * The read cache on PostgreSQL, two instances on one database: reads are
 * answered from memory while nothing they were read from changed, and a
 * write acknowledged by one instance is never hidden by the other's cache.
 */
describe.skipIf(!postgresAvailable)(pgSuite('read cache on PostgreSQL, two instances'), () => {
  const database = migratedDatabaseForSuite(8);
  const instance = () =>
    listingsContext({
      stores: { listings: postgresListingsStore(database.client()) },
      readCache: new ReadCache({ postgres: database.client() }),
    });
  const FEATURE = '?features[0][name]=balcony&features[0][value]=yes';

  test('a property and a features list are remembered, and dropped by a write on the other instance', async () => {
    const [a, b] = [await instance(), await instance()];
    const id = await postProperty(a);
    const read = async () => (await b.request('GET', `/listings/properties/${id}`)).body;
    const list = async () =>
      (
        await b.request<{ total: number }>('GET', `/listings/properties${FEATURE}`, {
          token: b.employee,
        })
      ).body.total;
    await b.deps.readCache.synced(); // b's feed starts here
    expect(await read()).toMatchObject({ isVisitable: false });
    const before = await list();
    const hits = b.deps.readCache.hits;
    await read();
    expect(await list()).toBe(before);
    expect(b.deps.readCache.hits).toBe(hits + 2);

    const put = await a.request('PUT', `/listings/properties/${id}/information`, {
      body: { isVisitable: true, yearOfConstruction: 1931 },
      token: a.employee,
    });
    expect(put.status).toBe(204);
    expect(await read()).toMatchObject({ isVisitable: true, yearOfConstruction: 1931 });

    const unit = await a.request('POST', `/listings/properties/${id}/units`, {
      body: {
        features: [{ applicability: 'unit', category: 'amenities', name: 'balcony', value: 'yes' }],
      },
      token: a.employee,
    });
    expect(unit.status).toBe(201);
    expect(await list()).toBe(before + 1);
  });

  test('a read with nothing held waits for no look, and what it reads is not held past a reset', async () => {
    const a = await instance();
    const id = await postProperty(a);
    const cache = a.deps.readCache;
    // The first read starts the feed without waiting for it; its value, read before the feed's
    // starting point, is dropped by it rather than trusted.
    await a.request('GET', `/listings/properties/${id}`);
    await cache.synced();
    expect(cache.size).toBe(0);
    await a.request('GET', `/listings/properties/${id}`);
    expect(cache.size).toBe(1);
    await a.request('GET', `/listings/properties/${id}`);
    expect(cache.hits).toBe(1);
  });
});
