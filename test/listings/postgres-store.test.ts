import { expect, test } from 'bun:test';
import { propertyToCreate } from '@/listings/properties/operations';
import type { Property, PropertyCreate } from '@/listings/properties/schemas';
import { problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { propertyBody } from './support';

/**
 * What only the PostgreSQL store can get wrong: concurrent writes that
 * SQLite's single writer serialises, the group commit's equivalent, types
 * and text round trips, sort order and NUL. Each runs on both stores, so
 * the two answer alike.
 */
const [sqlite, postgres] = storesUnderTest();

const idOf = (res: { headers: Headers }) => res.headers.get('location')!.split('/').pop()!;

async function create(ctx: ListingsTestApp, overrides: Record<string, unknown> = {}) {
  const res = await ctx.request('POST', '/listings/properties', {
    body: propertyBody(overrides),
    token: ctx.employee,
  });
  expect(res.status).toBe(201);
  return idOf(res);
}

const read = async (ctx: ListingsTestApp, id: string) =>
  (await ctx.request<Property>('GET', `/listings/properties/${id}`)).body;

for (const store of [sqlite!, postgres!]) {
  store.describe('listings store: concurrency', () => {
    test('35 units added at once to a 1-unit property: exactly 29 fit under the 30-unit limit', async () => {
      const ctx = await store.app();
      const id = await create(ctx);
      const statuses = (
        await Promise.all(
          Array.from({ length: 35 }, () =>
            ctx.request('POST', `/listings/properties/${id}/units`, {
              body: {},
              token: ctx.employee,
            }),
          ),
        )
      ).map((res) => res.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(29);
      expect(statuses.filter((s) => s === 409)).toHaveLength(6);
      expect(await read(ctx, id)).toMatchObject({ totalUnits: 30, rentableUnits: 30 });
    });

    test('lists read while properties are created: every total agrees with its page', async () => {
      const ctx = await store.app({ env: { READ_CACHE: 'off' } });
      // A counted total (ownerId) and one kept in property_counts (city × type).
      const lists = ['ownerId=owner-race', 'cityIds=madrid&type=apartment'];
      let creating = true;
      const creates = (async () => {
        try {
          for (let i = 0; i < 20; i++) await create(ctx, { ownerId: 'owner-race' });
        } finally {
          creating = false;
        }
      })();
      const listed = [];
      while (creating) {
        const batch = lists.map((list) =>
          ctx.request<{ total: number; _embedded: { 'svc:properties': unknown[] } }>(
            'GET',
            `/listings/properties?${list}&itemsPerPage=100`,
            { token: ctx.employee },
          ),
        );
        listed.push(...(await Promise.all(batch)));
        // SQLite answers without I/O: let the creates' commits run between batches.
        await Bun.sleep(1);
      }
      await creates;
      for (const { status, body } of listed) {
        expect(status).toBe(200);
        expect(body._embedded['svc:properties']).toHaveLength(body.total);
      }
    });

    test('every unit deleted at once: the last live one stays, counters agree with the rows', async () => {
      const ctx = await store.app();
      const id = await create(ctx, { totalUnits: 6 });
      const unitIds = await ctx.unitIdsOf(id);
      const statuses = (
        await Promise.all(
          unitIds.map((unitId) =>
            ctx.request('DELETE', `/listings/properties/${id}/units/${unitId}`, {
              token: ctx.employee,
            }),
          ),
        )
      ).map((res) => res.status);
      expect(statuses.filter((s) => s === 204)).toHaveLength(5);
      expect(statuses.filter((s) => s === 409)).toHaveLength(1);
      expect(await read(ctx, id)).toMatchObject({ totalUnits: 1, rentableUnits: 1 });
      const [live] = await ctx.query<{ n: number }>(
        'SELECT count(*) AS n FROM units WHERE property_id = ? AND deleted_at IS NULL',
        id,
      );
      expect(Number(live!.n)).toBe(1);
    });

    test('a neighbourhood moved to another city while properties are assigned to it: never both', async () => {
      const ctx = await store.app();
      const put = (cityId: string) =>
        ctx.request('PUT', '/listings/neighbourhoods/centro', {
          body: { cityId, name: 'Centro' },
          token: ctx.employee,
        });
      expect((await put('madrid')).status).toBe(204);
      const ids = await Promise.all(Array.from({ length: 5 }, () => create(ctx)));
      const [moved, ...assigned] = await Promise.all([
        put('paris'),
        ...ids.map((id) =>
          ctx.request('PUT', `/listings/properties/${id}/neighbourhood`, {
            body: { neighbourhoodId: 'centro' },
            token: ctx.employee,
          }),
        ),
      ]);
      const placed = assigned.filter((res) => res.status === 204).length;
      // Either the move went first (every assignment then finds another city)
      // or an assignment did (the move is then refused as in use).
      if (moved!.status === 204) expect(placed).toBe(0);
      else expect([moved!.status, placed > 0]).toEqual([409, true]);
      const mismatched = await ctx.query<{ id: string }>(
        `SELECT p.id FROM properties p JOIN neighbourhoods n ON n.id = p.neighbourhood_id
         WHERE n.city_id <> p.city_id`,
      );
      expect(mismatched).toEqual([]);
    });
  });

  store.describe('listings store: writes all or nothing', () => {
    test('creates in one turn: one the database refuses (NUL, PostgreSQL only) fails alone, the others are stored', async () => {
      const ctx = await store.app();
      const caller = { sub: 'employee-1', aud: 'employee' as const };
      // The store itself, not the route: a route refuses a body holding NUL before any store.
      const createOf = (addressLine1: string) => ({
        row: propertyToCreate(
          propertyBody({
            location: { ...propertyBody().location, addressLine1 },
          }) as PropertyCreate,
          { caller, source: 'outbound', now: Date.now() },
        ),
        counted: false,
      });
      const streets = ['Calle Uno 1', 'Calle Dos 2', 'Calle Tres 3', 'a\u0000b'];
      // PostgreSQL text cannot hold NUL: the shared transaction fails, each create runs again alone.
      const outcomes = await Promise.allSettled(
        streets.map((street) => ctx.deps.stores.listings.createProperty(createOf(street), 10_000)),
      );
      const refused = store.name === 'PostgreSQL';
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        refused ? 'rejected' : 'fulfilled',
      ]);
      const stored = outcomes.flatMap((outcome) =>
        outcome.status === 'fulfilled' ? [outcome.value] : [],
      );
      expect(await ctx.count('properties')).toBe(stored.length);
      expect((await ctx.createdEvents()).sort()).toEqual(stored.sort());
    });

    test('a NUL in a property field: 422 naming the field on either database, nothing written', async () => {
      const ctx = await store.app();
      const res = await ctx.request('POST', '/listings/properties', {
        body: propertyBody({ location: { ...propertyBody().location, addressLine1: 'a\u0000b' } }),
        token: ctx.employee,
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(
        problemOf(422, undefined, {
          location: {
            addressLine1: { noNul: 'The field must not contain the NUL character (U+0000).' },
          },
        }),
      );
      expect(await ctx.count('properties')).toBe(0);
      expect(await ctx.count('events')).toBe(0);
    });

    test('a failed archive (412) changes no row and appends no event', async () => {
      const ctx = await store.app();
      const id = await create(ctx, { totalUnits: 2 });
      const before = [await read(ctx, id), await ctx.count('events')];
      const res = await ctx.request('DELETE', `/listings/properties/${id}`, {
        token: ctx.employee,
        headers: { 'if-match': '"stale"' },
      });
      expect(res.status).toBe(412);
      expect([await read(ctx, id), await ctx.count('events')]).toEqual(before);
    });
  });

  store.describe('listings store: values', () => {
    test('numbers, booleans, times and text come back as written', async () => {
      const ctx = await store.app();
      const id = await create(ctx, {
        totalUnits: 3,
        rentableUnits: 2,
        yearOfConstruction: 1887,
        isVisitable: true,
        location: {
          addressLine1: "Rua d'Ouro 12 — 3º esq. \\ 😀",
          addressLine2: 'Ático',
          city: 'Lisboa',
          cityId: 'lisbon',
          postalCode: '1100-063',
          latitude: 38.710_123_456_789_01,
          longitude: -9.139_876_543_210_98,
        },
      });
      const property = await read(ctx, id);
      expect(property).toMatchObject({
        totalUnits: 3,
        rentableUnits: 2,
        publishedUnits: 0,
        yearOfConstruction: 1887,
        isVisitable: true,
        verified: false,
        archived: false,
        published: false,
        location: {
          addressLine1: "Rua d'Ouro 12 — 3º esq. \\ 😀",
          addressLine2: 'Ático',
          latitude: 38.710_123_456_789_01,
          longitude: -9.139_876_543_210_98,
          country: 'PT',
        },
      });
      expect(property.createdAt).toBe(new Date(ctx.clock()).toISOString());
      // A backslash in the needle is literal, as on SQLite.
      const found = await ctx.request<{ total: number }>(
        'GET',
        `/listings/properties?address=${encodeURIComponent('esq. \\ 😀')}`,
        { token: ctx.employee },
      );
      expect(found.body.total).toBe(1);
    });

    test('text sorts by code point, upper case before lower case before accents', async () => {
      const ctx = await store.app();
      const owners = ['b', 'B', 'a', 'Á', 'Z', '_x', 'a b', 'ab'];
      for (const ownerId of owners) await ctx.makeProperty({ ownerId });
      const res = await ctx.request<{ _embedded: { 'svc:properties': Property[] } }>(
        'GET',
        '/listings/properties?sort=ownerId',
        { token: ctx.employee },
      );
      expect(res.body._embedded['svc:properties'].map((p) => p.ownerId)).toEqual([
        'B',
        'Z',
        '_x',
        'a',
        'a b',
        'ab',
        'b',
        'Á',
      ]);
    });

    test('NUL in a filter or an id matches nothing (no error)', async () => {
      const ctx = await store.app();
      const id = await create(ctx);
      for (const query of ['ownerId=a%00b', `ids=${id},x%00`, 'features[0][name]=%00', 'id=%00']) {
        const res = await ctx.request<{ total: number }>('GET', `/listings/properties?${query}`, {
          token: ctx.employee,
        });
        expect([query, res.status]).toEqual([query, 200]);
      }
      const byIds = await ctx.request<{ total: number }>(
        'GET',
        `/listings/properties?ids=${id},x%00`,
        { token: ctx.employee },
      );
      expect(byIds.body.total).toBe(1);
      expect((await ctx.request('GET', '/listings/properties/a%00b')).status).toBe(404);
      const unit = await ctx.request('GET', `/listings/properties/${id}/units/a%00b`, {
        token: ctx.employee,
      });
      expect(unit.status).toBe(404);
    });
  });
}

for (const store of [sqlite!, postgres!]) {
  store.describe('listings store: unit-counter reconcile', () => {
    test('repairs drifted counters chunk by chunk; property_counts follows', async () => {
      const ctx = await store.app();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(await ctx.makeProperty({ totalUnits: 5, rentableUnits: 3 }));
      }
      const yes = '(1 = 1)';
      await ctx.query(
        'UPDATE properties SET total_units = 9, rentable_units = 0 WHERE id = ?',
        ids[0]!,
      );
      await ctx.query(
        `UPDATE units SET published = ${yes} WHERE id = (SELECT min(id) FROM units WHERE property_id = ?)`,
        ids[2]!,
      );
      const reconcile = (afterId: string | null) =>
        ctx.deps.stores.listings.reconcileUnitCounters({ afterId, limit: 2, now: 1 });
      const first = await reconcile(null);
      expect(first).toEqual({ scanned: 2, repaired: 1, lastId: ids[1]! });
      expect(await reconcile(first.lastId)).toEqual({ scanned: 1, repaired: 1, lastId: ids[2]! });
      expect(await reconcile(ids[2]!)).toEqual({ scanned: 0, repaired: 0, lastId: null });
      const counters = await Promise.all(ids.map((id) => read(ctx, id)));
      expect(
        counters.map((p) => [p.totalUnits, p.rentableUnits, p.publishedUnits, p.published]),
      ).toEqual([
        [5, 3, 0, false],
        [5, 3, 0, false],
        [5, 3, 1, true],
      ]);
      const [cells] = await ctx.query<{ n: number }>(
        `SELECT sum(properties) AS n FROM property_counts WHERE published = ${yes}`,
      );
      expect(Number(cells!.n)).toBe(1);
    });
  });
}
