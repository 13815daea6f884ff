import { beforeAll, describe, expect, test } from 'bun:test';
import type { SQL } from 'bun';
import { ReadCache } from '@/db/read-cache';
import { postgresListingsStore } from '@/listings/postgres-store';
import { countedDatabaseForSuite } from '../support/pg-wire';
import { pgSuite, postgresAvailable } from '../support/postgres';
import { type ListingsContext, listingsContext, postProperty } from './support';

/** Reads sent together: one batch of the change feed's looks. */
const TOGETHER = 32;

/**
 * What a cached read costs PostgreSQL, counted on the wire: the statements
 * its instance sends while `TOGETHER` requests arrive at once. A remembered
 * answer waits for a look at the change feed, shared by the reads that
 * arrive together, and sends nothing of its own.
 */
describe.skipIf(!postgresAvailable)(pgSuite('cached reads on PostgreSQL, round trips'), () => {
  const { wire, pool: poolOf } = countedDatabaseForSuite(8);
  let pool: SQL;
  let ctx: ListingsContext;
  let id: string;

  beforeAll(async () => {
    pool = poolOf();
    ctx = await listingsContext({
      stores: { listings: postgresListingsStore(pool) },
      readCache: new ReadCache({ postgres: pool }),
    });
    id = await postProperty(ctx);
    for (let n = 0; n < 3; n++) await postProperty(ctx);
    await ctx.deps.readCache.synced();
  });

  /** Statements sent while `TOGETHER` GETs of `path` are answered at once, each a hit. */
  async function statementsOfCachedReads(path: string): Promise<number> {
    const get = () => ctx.request('GET', path, { token: ctx.employee });
    // Read until remembered: the first read may come before the feed's starting point.
    const first = await get();
    expect(first.status).toBe(200);
    await get();
    const hits = ctx.deps.readCache.hits;
    const statements = await wire.statementsDuring(async () => {
      const answers = await Promise.all(Array.from({ length: TOGETHER }, get));
      for (const answer of answers) expect(answer.text).toBe(first.text);
    });
    expect(ctx.deps.readCache.hits - hits).toBe(TOGETHER);
    return statements;
  }

  test('a cached point read, a cached keyset walk start and a later keyset page cost only the shared looks', async () => {
    const point = await statementsOfCachedReads(`/listings/properties/${id}`);
    const walk = '/listings/properties?cityIds=madrid&sort=-_id&itemsPerPage=2&paging=keyset';
    const start = await statementsOfCachedReads(walk);
    const first = await ctx.request<{ _links: { next: { href: string } } }>('GET', walk, {
      token: ctx.employee,
    });
    const later = await statementsOfCachedReads(first.body._links.next.href);
    const fixed = await statementsOfCachedReads('/listings/properties?cityIds=madrid&page=1');
    // Looks run one at a time: the reads that arrive while one runs share the next.
    for (const statements of [point, start, later, fixed])
      expect(statements).toBeLessThanOrEqual(2);
    expect(start).toBeLessThanOrEqual(Math.max(point, 2));
  });

  test('a cached walk start answers at the position of the look that checked it, as a fresh read would', async () => {
    const walk = '/listings/properties?cityIds=madrid&sort=_id&itemsPerPage=2&paging=keyset';
    const cursorOf = async (on: ListingsContext) =>
      (await on.request<{ feedCursor: string }>('GET', walk, { token: on.employee })).body
        .feedCursor;
    await cursorOf(ctx);
    const before = await cursorOf(ctx);
    // A create in another city appends an event: the page stays valid, its position moves on.
    await postProperty(ctx, { location: BARCELONA });
    const hits = ctx.deps.readCache.hits;
    const after = await cursorOf(ctx);
    expect(ctx.deps.readCache.hits).toBe(hits + 1);
    expect(after).not.toBe(before);
    const uncached = await listingsContext({
      stores: { listings: postgresListingsStore(pool) },
      readCache: new ReadCache({ postgres: pool, enabled: false }),
    });
    expect(after).toBe(await cursorOf(uncached));
  });
});

const BARCELONA = {
  addressLine1: 'Carrer de Mallorca 1',
  city: 'Barcelona',
  cityId: 'barcelona',
  postalCode: '08013',
  latitude: 41.39,
  longitude: 2.17,
};
