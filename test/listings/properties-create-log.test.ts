import type { Database } from 'bun:sqlite';
import { afterEach, expect, test } from 'bun:test';
import type { Property } from '@/listings/properties/schemas';
import { READ_CACHE, sqliteOnly } from '../support/postgres-mode';
import { countStatements } from '../support/statements';
import { listingsContext, postProperty, propertyBody } from './support';

/**
 * A create writes its rows in few statements and tells the read caches of
 * its units once per write (a marker row pauses the per-unit trigger inside
 * the create's transaction; one row after the units ends the pause, however
 * many creates share the transaction). These tests pin the batching and show
 * that it stays exact: a read after a 201 sees the create, and a unit
 * written afterwards by anyone is still seen by a cached list.
 */

type Change = { topic: string; key: string };
const changesAfter = (client: Database, seq: number) =>
  client
    .query<Change, [number]>('SELECT topic, key FROM cache_changes WHERE seq > ? ORDER BY seq')
    .all(seq);
const lastSeq = (client: Database) =>
  client.query<{ s: number }, []>('SELECT coalesce(max(seq), 0) AS s FROM cache_changes').get()!.s;

let restoreQuery = () => {};
afterEach(() => restoreQuery());

sqliteOnly.describe(READ_CACHE, 'a create, batched', () => {
  test('30 units go in with one INSERT and one log row for the property, not one per unit', async () => {
    const ctx = await listingsContext();
    const client = ctx.db.$client;
    const before = lastSeq(client);
    const spy = countStatements(client);
    restoreQuery = spy.restore;
    const id = await postProperty(ctx, { totalUnits: 30, rentableUnits: 10 });
    spy.restore();
    expect(spy.runs.get('INSERT INTO units')).toBe(1);
    expect(spy.runs.get('INSERT INTO properties')).toBe(1);
    const units = changesAfter(client, before).filter((change) => change.topic === 'unit');
    // The marker, then one row naming the property.
    expect(units).toEqual([
      { topic: 'unit', key: '' },
      { topic: 'unit', key: id },
    ]);
    const read = await ctx.request<Property>('GET', `/listings/properties/${id}`);
    expect(read.body).toMatchObject({ totalUnits: 30, rentableUnits: 10 });
  });

  test('each INSERT shape is compiled once per connection, however many shapes the creates take', async () => {
    // Bun keeps 20 texts in `Database.query`'s cache; 1 to 25 units make 25
    // unit INSERTs alone, more than it holds, so every round would compile again.
    const ctx = await listingsContext();
    const spy = countStatements(ctx.db.$client);
    restoreQuery = spy.restore;
    const round = async () => {
      for (let totalUnits = 1; totalUnits <= 25; totalUnits++) {
        await postProperty(ctx, { totalUnits, rentableUnits: 1 });
      }
    };
    await round();
    const inserts = ['INSERT INTO properties', 'INSERT INTO units', 'INSERT INTO events'];
    const compiledOf = () => inserts.map((head) => spy.compiled.get(head) ?? 0);
    const first = compiledOf();
    // Creates sent one after another: one property and one event a statement, 25 unit shapes.
    expect(first).toEqual([1, 25, 1]);
    await round();
    await round();
    expect(compiledOf()).toEqual(first);
    expect(spy.runs.get('INSERT INTO units')).toBe(75);
  });

  test('creates sharing a commit log their units with two rows in all, not one per property', async () => {
    // Three POSTs at once share one commit unless a busy machine spreads them
    // over two macrotasks: then they are sent again to a new service, a few
    // times at most, so that the rows counted are those of one commit.
    const sharedCommit = async () => {
      const ctx = await listingsContext();
      const client = ctx.db.$client;
      const before = lastSeq(client);
      const ids = await Promise.all(
        [3, 7, 30].map((totalUnits) => postProperty(ctx, { totalUnits, rentableUnits: 1 })),
      );
      const changes = changesAfter(client, before);
      const commits = changes.filter((change) => change.topic === 'unit' && change.key === '');
      return { client, ids, changes, shared: commits.length === 1 };
    };
    let attempt = await sharedCommit();
    for (let tries = 1; !attempt.shared && tries < 10; tries++) attempt = await sharedCommit();
    const { client, ids, changes } = attempt;
    expect(attempt.shared).toBe(true);
    // The three went in one transaction: each property's own row, then the units' two.
    expect(changes.filter((change) => change.topic === 'property')).toHaveLength(3);
    const units = changes.filter((change) => change.topic === 'unit');
    expect(units).toHaveLength(2);
    expect(units[0]).toEqual({ topic: 'unit', key: '' });
    expect(ids).toContain(units[1]!.key);
    expect(changes.at(-1)).toEqual(units[1]);
    const stored = client.query<{ n: number }, []>('SELECT count(*) AS n FROM units').get()!;
    expect(stored.n).toBe(40);
  });

  test('a read after each 201 sees the create, the cache on, lists cached in between', async () => {
    const ctx = await listingsContext();
    const list = `/listings/properties?cityIds=madrid&itemsPerPage=100`;
    for (let n = 1; n <= 5; n++) {
      const cached = await ctx.request<{ total: number }>('GET', list, { token: ctx.employee });
      expect(cached.body.total).toBe(n - 1);
      const id = await postProperty(ctx, { totalUnits: n * 6 });
      const read = await ctx.request<Property>('GET', `/listings/properties/${id}`, {
        token: ctx.employee,
      });
      expect(read.status).toBe(200);
      expect(read.body.totalUnits).toBe(n * 6);
      const after = await ctx.request<{ total: number }>('GET', list, { token: ctx.employee });
      expect(after.body.total).toBe(n);
    }
  });

  test('a unit written after a create, by the route or by another writer, drops the cached unitIds list', async () => {
    const ctx = await listingsContext();
    const client = ctx.db.$client;
    const id = await postProperty(ctx, { totalUnits: 2 });
    const byUnit = (unitId: string) =>
      ctx.request<{ total: number }>('GET', `/listings/properties?unitIds=${unitId}`, {
        token: ctx.employee,
      });
    const later = '01900000-0000-7000-8000-00000000aaaa';
    expect((await byUnit(later)).body.total).toBe(0);
    // Another writer (a shell, another process): the create's log must not end paused.
    client
      .query(
        `INSERT INTO units (id, property_id, rentable, published, created_at, updated_at)
         VALUES (?, ?, 1, 0, 1, 1)`,
      )
      .run(later, id);
    expect((await byUnit(later)).body.total).toBe(1);
    // The unit route, after a create that shared nothing with it.
    const added = await ctx.request('POST', `/listings/properties/${id}/units`, {
      body: { rentable: true },
      token: ctx.employee,
    });
    expect(added.status).toBe(201);
    const unitId = added.headers.get('location')!.split('/').pop()!;
    expect((await byUnit(unitId)).body.total).toBe(1);
  });

  test('a create refused inside a shared commit leaves no marker behind', async () => {
    const ctx = await listingsContext({ env: { QUOTA_PROPERTIES_PER_OWNER: '1' } });
    const client = ctx.db.$client;
    const responses = await Promise.all(
      [1, 2].map(() =>
        ctx.request('POST', '/listings/properties', {
          body: propertyBody({ totalUnits: 3 }),
          token: ctx.customer,
        }),
      ),
    );
    expect(responses.map((res) => res.status).sort()).toEqual([201, 409]);
    const last = client
      .query<Change, []>('SELECT topic, key FROM cache_changes ORDER BY seq DESC LIMIT 1')
      .get()!;
    expect(last).not.toEqual({ topic: 'unit', key: '' });
  });
});
