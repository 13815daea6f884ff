import { beforeAll, describe, expect, test } from 'bun:test';
import { MultiListingUnitList } from '@/listings/multi-listing-units/schemas';
import type { HalCollection } from '@/listings/paging';
import { badRequest, badRequestNaming, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { OTHER_OWNER, postProperty } from './support';

for (const store of storesUnderTest()) {
  store.describe('counters store', () => {
    let ctx: ListingsTestApp;
    let mine: string;
    let theirs: string;
    let archived: string;
    beforeAll(async () => {
      ctx = await store.app();
      mine = await postProperty(ctx, { totalUnits: 3 });
      theirs = await ctx.makeProperty({ ownerId: OTHER_OWNER, totalUnits: 7 });
      archived = await ctx.makeProperty({ totalUnits: 2, archived: true });
    });

    type List = HalCollection<{ id: string; unitsCounter: number }, 'svc:multi-listing-units'>;
    const MISSING = '01900000-0000-7000-8000-000000000000';

    const list = async (query = '', token = ctx.employee) => {
      const res = await ctx.request<List>('GET', `/listings/multi-listing-units${query}`, {
        token,
      });
      expect(res.status).toBe(200);
      expect(MultiListingUnitList.safeParse(res.body).success).toBe(true);
      return res.body;
    };
    const put = (id: string, body: unknown, token = ctx.employee) =>
      ctx.request('PUT', `/listings/multi-listing-units/${id}`, { body, token });

    describe('multi-listing unit counters', () => {
      describe('happy', () => {
        test('every property has one from creation, unitsCounter = totalUnits', async () => {
          const res = await ctx.request('GET', `/listings/multi-listing-units/${mine}`, {
            token: ctx.employee,
          });
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ id: mine, unitsCounter: 3 });
        });

        test('list: paged and linked like the property list, in id order', async () => {
          const body = await list('?itemsPerPage=2');
          expect(body).toEqual({
            count: 2,
            total: 3,
            _links: {
              self: { href: '/listings/multi-listing-units?itemsPerPage=2&page=1' },
              first: { href: '/listings/multi-listing-units?itemsPerPage=2&page=1' },
              last: { href: '/listings/multi-listing-units?itemsPerPage=2&page=2' },
              next: { href: '/listings/multi-listing-units?itemsPerPage=2&page=2' },
            },
            _embedded: {
              'svc:multi-listing-units': [
                { id: mine, unitsCounter: 3 },
                { id: theirs, unitsCounter: 7 },
              ],
            },
          });
          const last = await list('?itemsPerPage=2&page=2');
          expect(last._embedded['svc:multi-listing-units']).toEqual([
            { id: archived, unitsCounter: 2 },
          ]);
          expect(last._links.previous).toEqual({
            href: '/listings/multi-listing-units?itemsPerPage=2&page=1',
          });
          expect((await list('?page=5'))._embedded['svc:multi-listing-units']).toEqual([]);
        });

        test.each([['ids=A&ids=B'], ['ids[]=A&ids[]=B'], ['ids[0]=A&ids[1]=B'], ['ids=A,B']])(
          'ids filter as %s',
          async (encoding) => {
            const query = encoding.replace('A', archived).replace('B', mine);
            const body = await list(`?${query}`);
            expect(body.total).toBe(2);
            expect(body._embedded['svc:multi-listing-units'].map((c) => c.id)).toEqual([
              mine,
              archived,
            ]);
            expect(body._links.self.href).toBe(`/listings/multi-listing-units?${query}&page=1`);
          },
        );

        test('PUT {counter} → 204, then GET returns it; 0 and 10000 accepted', async () => {
          for (const counter of [0, 10_000, 4]) {
            const res = await put(mine, { counter });
            expect(res.status).toBe(204);
            expect(res.text).toBe('');
            const read = await ctx.request('GET', `/listings/multi-listing-units/${mine}`, {
              token: ctx.customer,
            });
            expect(read.body).toEqual({ id: mine, unitsCounter: counter });
          }
        });

        test('the counter is independent of the units afterwards and stays with an archived property', async () => {
          const id = await postProperty(ctx, { totalUnits: 2 });
          await ctx.request('POST', `/listings/properties/${id}/units`, { token: ctx.employee });
          await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
          const res = await ctx.request('GET', `/listings/multi-listing-units/${id}`, {
            token: ctx.employee,
          });
          expect(res.body).toEqual({ id, unitsCounter: 2 });
          expect((await put(id, { counter: 9 })).status).toBe(204);
        });
      });

      describe('error', () => {
        test('400 for a counter outside 0..10000, not an integer, missing or an extra field', async () => {
          for (const [body, name] of [
            [{ counter: -1 }, 'counter'],
            [{ counter: 10_001 }, 'counter'],
            [{ counter: 1.5 }, 'counter'],
            [{ counter: '3' }, 'counter'],
            [{}, 'counter'],
            [{ counter: 1, extra: true }, 'extra'],
          ] as const) {
            const res = await put(theirs, body);
            expect(res.status).toBe(400);
            expect(res.body).toEqual(badRequestNaming(name));
          }
          const read = await ctx.request('GET', `/listings/multi-listing-units/${theirs}`, {
            token: ctx.employee,
          });
          expect(read.body).toEqual({ id: theirs, unitsCounter: 7 });
        });

        test('400 for an id that cannot be a property id, or a bad list query', async () => {
          const get = (path: string) => ctx.request('GET', path, { token: ctx.employee });
          for (const [res, param] of [
            [
              await get('/listings/multi-listing-units/not%20an%20id'),
              ['id', 'must be 1 to 64 letters, digits, _ and - (got "not an id")'],
            ],
            [
              await put('x'.repeat(65), { counter: 1 }),
              ['id', `must be 1 to 64 letters, digits, _ and - (got "${'x'.repeat(64)}…")`],
            ],
            [
              await get('/listings/multi-listing-units?itemsPerPage=101'),
              ['itemsPerPage', 'must be an integer from 1 to 100 (got "101")'],
            ],
            [
              await get('/listings/multi-listing-units?sort=_id'),
              ['sort', 'is not a parameter of this operation'],
            ],
            [
              await get('/listings/multi-listing-units?page=x'),
              ['page', 'must be an integer from 1 to 999999999 (got "x")'],
            ],
          ] as const) {
            expect(res.status).toBe(400);
            expect(res.body).toEqual(badRequest(param));
          }
        });

        test('404 for a missing property', async () => {
          for (const res of [
            await ctx.request('GET', `/listings/multi-listing-units/${MISSING}`, {
              token: ctx.employee,
            }),
            await put(MISSING, { counter: 1 }),
          ]) {
            expect(res.status).toBe(404);
            expect(res.body).toEqual(problemOf(404));
          }
        });
      });

      describe('auth', () => {
        test('401 without a token on each operation', async () => {
          for (const res of [
            await ctx.request('GET', '/listings/multi-listing-units'),
            await ctx.request('GET', `/listings/multi-listing-units/${mine}`),
            await ctx.request('PUT', `/listings/multi-listing-units/${mine}`, {
              body: { counter: 1 },
            }),
          ]) {
            expect(res.status).toBe(401);
            expect(res.body).toEqual(problemOf(401));
          }
        });

        test('customers: own counters only, listed silently limited, writes 403', async () => {
          const listed = await list('', ctx.customer);
          expect(listed._embedded['svc:multi-listing-units'].map((c) => c.id)).toEqual(
            expect.arrayContaining([mine, archived]),
          );
          expect(listed._embedded['svc:multi-listing-units'].map((c) => c.id)).not.toContain(
            theirs,
          );
          expect((await list(`?ids=${theirs}`, ctx.customer)).total).toBe(0);
          const other = await ctx.request('GET', `/listings/multi-listing-units/${theirs}`, {
            token: ctx.customer,
          });
          expect(other.status).toBe(404);
          const write = await put(mine, { counter: 1 }, ctx.customer);
          expect(write.status).toBe(403);
          expect(write.body).toEqual(problemOf(403));
        });
      });
    });
  });
}
