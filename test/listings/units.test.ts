import { beforeAll, describe, expect, test } from 'bun:test';
import { UnitList } from '@/api/listings/units/routes';
import type { HalCollection } from '@/listings/paging';
import type { Property } from '@/listings/properties/schemas';
import type { Unit } from '@/listings/units/schemas';
import { badRequest, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { postProperty } from './support';

for (const store of storesUnderTest()) {
  store.describe('units', () => {
    let ctx: ListingsTestApp;
    beforeAll(async () => {
      ctx = await store.app();
    });
    const MISSING = '01900000-0000-7000-8000-000000000000';
    const base = (id: string) => `/listings/properties/${id}/units`;
    const property = async (id: string) =>
      (await ctx.request<Property>('GET', `/listings/properties/${id}`)).body;
    const units = async (id: string, query = '') => {
      const res = await ctx.request<HalCollection<Unit, 'svc:units'>>(
        'GET',
        `${base(id)}${query}`,
        {
          token: ctx.employee,
        },
      );
      expect(res.status).toBe(200);
      expect(UnitList.safeParse(res.body).success).toBe(true);
      return res.body;
    };
    const add = (id: string, body?: unknown, token = ctx.employee) =>
      ctx.request('POST', base(id), { body, token });
    const patch = (id: string, unitId: string, body: unknown, token = ctx.employee) =>
      ctx.request('PATCH', `${base(id)}/${unitId}`, { body, token });
    const remove = (id: string, unitId: string, token = ctx.employee) =>
      ctx.request('DELETE', `${base(id)}/${unitId}`, { token });
    const counters = async (id: string) => {
      const { totalUnits, rentableUnits, publishedUnits, published } = await property(id);
      return { totalUnits, rentableUnits, publishedUnits, published };
    };

    describe('happy', () => {
      test('GET list: paged like the property list, svc:units, in creation order', async () => {
        const id = await postProperty(ctx, { totalUnits: 3, rentableUnits: 2 });
        const body = await units(id, '?itemsPerPage=2');
        expect(body.count).toBe(2);
        expect(body.total).toBe(3);
        expect(body._links).toEqual({
          self: { href: `${base(id)}?itemsPerPage=2&page=1` },
          first: { href: `${base(id)}?itemsPerPage=2&page=1` },
          last: { href: `${base(id)}?itemsPerPage=2&page=2` },
          next: { href: `${base(id)}?itemsPerPage=2&page=2` },
        });
        const [first] = body._embedded['svc:units'];
        expect(first).toEqual({
          id: expect.any(String),
          propertyId: id,
          rentable: true,
          published: false,
          deleted: false,
          deletedAt: null,
          features: [],
        });
      });

      test('POST → 201 + Location; the unit reads back; counters follow', async () => {
        const id = await postProperty(ctx);
        const features = [
          { applicability: 'unit', category: 'amenities', name: 'balcony', value: 'yes' },
          { applicability: 'unit', category: 'amenities', name: 'desk', value: 'no' },
        ];
        const res = await add(id, { rentable: false, features }, ctx.customer);
        expect(res.status).toBe(201);
        expect(res.text).toBe('');
        const location = res.headers.get('location')!;
        const unitId = location.split('/').pop()!;
        expect(location).toBe(`${base(id)}/${unitId}`);
        const read = await ctx.request<Unit>('GET', location, { token: ctx.customer });
        expect(read.status).toBe(200);
        expect(read.body).toEqual({
          id: unitId,
          propertyId: id,
          rentable: false,
          published: false,
          deleted: false,
          deletedAt: null,
          features,
        });
        expect(await counters(id)).toEqual({
          totalUnits: 2,
          rentableUnits: 1,
          publishedUnits: 0,
          published: false,
        });
        const plain = await add(id);
        expect(plain.status).toBe(201);
        expect((await counters(id)).rentableUnits).toBe(2);
      });

      test('PATCH publishes: publishedUnits and published follow in the same write', async () => {
        const id = await postProperty(ctx, { totalUnits: 2 });
        const [unit] = (await units(id))._embedded['svc:units'];
        expect((await patch(id, unit!.id, { published: true })).status).toBe(204);
        expect(await counters(id)).toEqual({
          totalUnits: 2,
          rentableUnits: 2,
          publishedUnits: 1,
          published: true,
        });
        const feature = { applicability: 'unit', category: 'c', name: 'n', value: 'v' };
        await patch(id, unit!.id, { published: false, features: [feature] });
        const read = await ctx.request<Unit>('GET', `${base(id)}/${unit!.id}`, {
          token: ctx.employee,
        });
        expect(read.body).toMatchObject({ published: false, features: [feature] });
        expect((await counters(id)).published).toBe(false);
      });

      test('DELETE is soft: 204, gone from counters, listed with includeDeleted=true', async () => {
        const id = await postProperty(ctx, { totalUnits: 2 });
        const [unit] = (await units(id))._embedded['svc:units'];
        await patch(id, unit!.id, { published: true });
        ctx.clock.advance(5000);
        expect((await remove(id, unit!.id)).status).toBe(204);
        expect(await counters(id)).toEqual({
          totalUnits: 1,
          rentableUnits: 1,
          publishedUnits: 0,
          published: false,
        });
        expect((await units(id)).total).toBe(1);
        const withDeleted = await units(id, '?includeDeleted=true');
        expect(withDeleted.total).toBe(2);
        expect(withDeleted._embedded['svc:units'][0]).toMatchObject({
          id: unit!.id,
          deleted: true,
          published: false,
          deletedAt: new Date(ctx.clock()).toISOString(),
        });
      });
    });

    describe('error', () => {
      test('409 for a 31st unit, and nothing is written', async () => {
        const id = await postProperty(ctx, { totalUnits: 30 });
        const before = await ctx.count('units');
        const res = await add(id);
        expect(res.status).toBe(409);
        expect(res.body).toEqual(problemOf(409));
        expect(await ctx.count('units')).toBe(before);
      });

      test('409 deleting the last unit or a deleted one', async () => {
        const id = await postProperty(ctx, { totalUnits: 2 });
        const [a, b] = (await units(id))._embedded['svc:units'];
        expect((await remove(id, a!.id)).status).toBe(204);
        expect((await remove(id, a!.id)).status).toBe(409);
        const last = await remove(id, b!.id);
        expect(last.status).toBe(409);
        expect(last.body).toEqual(problemOf(409));
        expect((await counters(id)).totalUnits).toBe(1);
      });

      test('409 publishing a non-rentable unit, or making a published unit non-rentable', async () => {
        const id = await postProperty(ctx, { totalUnits: 2, rentableUnits: 1 });
        const [rentable, other] = (await units(id))._embedded['svc:units'];
        expect((await patch(id, other!.id, { published: true })).status).toBe(409);
        await patch(id, rentable!.id, { published: true });
        expect((await patch(id, rentable!.id, { rentable: false })).status).toBe(409);
        expect(await counters(id)).toMatchObject({ publishedUnits: 1, rentableUnits: 1 });
      });

      test('409 for any unit write on an archived property', async () => {
        const id = await postProperty(ctx, { totalUnits: 2 });
        const [unit] = (await units(id))._embedded['svc:units'];
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        for (const res of [
          await add(id),
          await patch(id, unit!.id, { published: true }),
          await remove(id, unit!.id),
        ]) {
          expect(res.status).toBe(409);
          expect(res.body).toEqual(problemOf(409));
        }
      });

      test('400 for bad bodies and queries', async () => {
        const id = await postProperty(ctx);
        const [unit] = (await units(id))._embedded['svc:units'];
        const feature = { applicability: 'a', category: 'c', name: 'n' };
        for (const [res, name, reason] of [
          [await add(id, { rentable: 'yes' }), 'rentable', 'must be true or false'],
          [await add(id, { features: [feature] }), 'features.0.value', 'is required'],
          [await patch(id, unit!.id, { deleted: true }), 'deleted', 'is not a field of this body'],
          [
            await ctx.request('GET', `${base(id)}?itemsPerPage=0`, { token: ctx.employee }),
            'itemsPerPage',
            'must be an integer from 1 to 100 (got "0")',
          ],
          [
            await ctx.request('GET', `${base(id)}?includeDeleted=1`, { token: ctx.employee }),
            'includeDeleted',
            'must be true or false (got "1")',
          ],
        ] as const) {
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest([name, reason]));
        }
      });

      test('404 for a missing property or unit, or a unit of another property', async () => {
        const id = await postProperty(ctx);
        const other = await postProperty(ctx);
        const [foreign] = (await units(other))._embedded['svc:units'];
        for (const res of [
          await ctx.request('GET', base(MISSING), { token: ctx.employee }),
          await add(MISSING),
          await ctx.request('GET', `${base(id)}/nope`, { token: ctx.employee }),
          await ctx.request('GET', `${base(id)}/${foreign!.id}`, { token: ctx.employee }),
          await patch(id, foreign!.id, { published: true }),
          await remove(id, foreign!.id),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body).toEqual(problemOf(404));
        }
      });
    });

    describe('auth', () => {
      test('401 without a token', async () => {
        const id = await postProperty(ctx);
        const [unit] = (await units(id))._embedded['svc:units'];
        for (const [method, path] of [
          ['GET', base(id)],
          ['POST', base(id)],
          ['GET', `${base(id)}/${unit!.id}`],
          ['PATCH', `${base(id)}/${unit!.id}`],
          ['DELETE', `${base(id)}/${unit!.id}`],
        ] as const) {
          const res = await ctx.request(method, path, {
            body: method === 'PATCH' ? {} : undefined,
          });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        }
      });

      test("404 for another owner's customer on every unit endpoint", async () => {
        const id = await postProperty(ctx);
        const [unit] = (await units(id))._embedded['svc:units'];
        const token = ctx.otherCustomer;
        for (const res of [
          await ctx.request('GET', base(id), { token }),
          await add(id, undefined, token),
          await ctx.request('GET', `${base(id)}/${unit!.id}`, { token }),
          await patch(id, unit!.id, { published: true }, token),
          await remove(id, unit!.id, token),
        ]) {
          expect(res.status).toBe(404);
        }
        expect((await units(id)).total).toBe(1);
      });
    });
  });
}
