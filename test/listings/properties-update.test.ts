import { beforeAll, describe, expect, test } from 'bun:test';
import { CITY_IDS } from '@/listings/cities';
import type { Property } from '@/listings/properties/schemas';
import { expectCustomerRefused } from '../support/auth-guards';
import { badRequest, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { OWNER, postProperty } from './support';

for (const store of storesUnderTest()) {
  store.describe('property writes', () => {
    let ctx: ListingsTestApp;
    beforeAll(async () => {
      ctx = await store.app();
    });

    const MISSING = '01900000-0000-7000-8000-000000000000';

    /** As an employee: an archived property is not shown without a token. */
    const read = async (id: string) =>
      (await ctx.request<Property>('GET', `/listings/properties/${id}`, { token: ctx.employee }))
        .body;
    const publishFirstUnit = async (id: string) => {
      const units = await ctx.request<{ _embedded: { 'svc:units': { id: string }[] } }>(
        'GET',
        `/listings/properties/${id}/units`,
        { token: ctx.employee },
      );
      const unitId = units.body._embedded['svc:units'][0]!.id;
      const res = await ctx.request('PATCH', `/listings/properties/${id}/units/${unitId}`, {
        body: { published: true },
        token: ctx.employee,
      });
      expect(res.status).toBe(204);
    };

    /** Puts a Madrid property in the catalogue's "sol" neighbourhood. */
    async function placeInSol(id: string) {
      await ctx.request('PUT', '/listings/neighbourhoods/sol', {
        body: { cityId: 'madrid', name: 'Sol' },
        token: ctx.employee,
      });
      const res = await ctx.request('PUT', `/listings/properties/${id}/neighbourhood`, {
        body: { neighbourhoodId: 'sol' },
        token: ctx.employee,
      });
      expect(res.status).toBe(204);
    }

    /** Every customer-reachable write answers 404 to another owner and 401 without a token. */
    function authCases(method: string, suffix: string, body: unknown) {
      test('401 without a token or with an invalid one', async () => {
        const id = await postProperty(ctx);
        for (const token of [undefined, 'a.b.c']) {
          const res = await ctx.request(method, `/listings/properties/${id}${suffix}`, {
            body,
            token,
          });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        }
      });

      test("404 for another owner's customer, and nothing changes", async () => {
        const id = await postProperty(ctx);
        const before = await read(id);
        const res = await ctx.request(method, `/listings/properties/${id}${suffix}`, {
          body,
          token: ctx.otherCustomer,
        });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404));
        expect(await read(id)).toEqual(before);
      });

      test('404 for a missing property', async () => {
        const res = await ctx.request(method, `/listings/properties/${MISSING}${suffix}`, {
          body,
          token: ctx.employee,
        });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404));
      });
    }

    describe('DELETE /listings/properties/{id} (archive)', () => {
      test('204, unpublishes every unit and archives; reasons accepted', async () => {
        const id = await postProperty(ctx, { totalUnits: 2 });
        await publishFirstUnit(id);
        expect(await read(id)).toMatchObject({ published: true, publishedUnits: 1 });
        ctx.clock.advance(1000);
        const res = await ctx.request('DELETE', `/listings/properties/${id}`, {
          body: { reasonToUnpublish: 'sold', reasonToUnpublishExtraInfo: 'to a friend' },
          token: ctx.customer,
        });
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        const after = await read(id);
        expect(after).toMatchObject({
          archived: true,
          published: false,
          publishedUnits: 0,
          totalUnits: 2,
          updatedAt: new Date(ctx.clock()).toISOString(),
        });
        const [row] = await ctx.query(
          'SELECT reason_to_unpublish, reason_to_unpublish_extra_info FROM properties WHERE id = ?',
          id,
        );
        expect(row).toEqual({
          reason_to_unpublish: 'sold',
          reason_to_unpublish_extra_info: 'to a friend',
        });
      });

      test('204 without a body', async () => {
        const id = await postProperty(ctx);
        const res = await ctx.request('DELETE', `/listings/properties/${id}`, {
          token: ctx.employee,
        });
        expect(res.status).toBe(204);
      });

      test('409 when already archived', async () => {
        const id = await postProperty(ctx);
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        const res = await ctx.request('DELETE', `/listings/properties/${id}`, {
          token: ctx.employee,
        });
        expect(res.status).toBe(409);
        expect(res.body).toEqual(problemOf(409));
      });

      test('400 for a bad body, and nothing changes', async () => {
        const id = await postProperty(ctx);
        for (const [body, name, reason] of [
          [{ reasonToUnpublish: 5 }, 'reasonToUnpublish', 'must be a string'],
          [{ other: 'x' }, 'other', 'is not a field of this body'],
        ] as const) {
          const res = await ctx.request('DELETE', `/listings/properties/${id}`, {
            body,
            token: ctx.employee,
          });
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest([name, reason]));
        }
        expect((await read(id)).archived).toBe(false);
      });

      authCases('DELETE', '', undefined);
    });

    describe('POST /listings/properties/{id}/unarchive', () => {
      test('204, back to not archived with units still unpublished', async () => {
        const id = await postProperty(ctx);
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        const res = await ctx.request('POST', `/listings/properties/${id}/unarchive`, {
          token: ctx.customer,
        });
        expect(res.status).toBe(204);
        expect(await read(id)).toMatchObject({ archived: false, published: false });
      });

      test('409 when not archived', async () => {
        const id = await postProperty(ctx);
        const res = await ctx.request('POST', `/listings/properties/${id}/unarchive`, {
          token: ctx.employee,
        });
        expect(res.status).toBe(409);
        expect(res.body).toEqual(problemOf(409));
      });

      authCases('POST', '/unarchive', undefined);
    });

    describe('PUT /listings/properties/{id}/convert', () => {
      test('204 and the type changes; published and archived stay', async () => {
        const id = await postProperty(ctx);
        await publishFirstUnit(id);
        const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
          body: { type: 'studio', reasonToUnpublishExtraInfo: 'smaller' },
          token: ctx.customer,
        });
        expect(res.status).toBe(204);
        expect(await read(id)).toMatchObject({ type: 'studio', published: true, archived: false });
      });

      test('the same type is a no-op 204', async () => {
        const id = await postProperty(ctx);
        const before = await read(id);
        ctx.clock.advance(1000);
        const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
          body: { type: 'apartment' },
          token: ctx.employee,
        });
        expect(res.status).toBe(204);
        expect(await read(id)).toEqual(before);
      });

      test('409 on an archived property', async () => {
        const id = await postProperty(ctx);
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
          body: { type: 'studio' },
          token: ctx.employee,
        });
        expect(res.status).toBe(409);
        expect(res.body).toEqual(problemOf(409));
        expect((await read(id)).type).toBe('apartment');
      });

      test('400 for a missing or unknown type', async () => {
        const id = await postProperty(ctx);
        for (const [body, reason] of [
          [{}, 'is required'],
          [{ type: 'castle' }, 'must be one of apartment, studio, roomShared, residence'],
        ] as const) {
          const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
            body,
            token: ctx.employee,
          });
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest(['type', reason]));
        }
      });

      authCases('PUT', '/convert', { type: 'studio' });
    });

    describe('PUT /listings/properties/{id}/location', () => {
      const paris = {
        addressLine1: '5 Rue de Rivoli',
        addressLine2: 'Bât. A',
        city: 'Paris',
        cityId: 'paris' as const,
        postalCode: '75001',
        latitude: 48.8566,
        longitude: 2.3522,
      };

      test('204; country follows cityId and the neighbourhood is dropped on another city', async () => {
        const id = await postProperty(ctx);
        await placeInSol(id);
        const res = await ctx.request('PUT', `/listings/properties/${id}/location`, {
          body: paris,
          token: ctx.customer,
        });
        expect(res.status).toBe(204);
        expect((await read(id)).location).toEqual({
          ...paris,
          neighbourhoodId: null,
          country: 'FR',
        });
      });

      test('an omitted cityId keeps the city and its neighbourhood; addressLine2 is cleared', async () => {
        const id = await postProperty(ctx, {
          location: {
            addressLine1: 'a',
            addressLine2: 'b',
            city: 'Madrid',
            cityId: 'madrid',
            postalCode: '1',
            latitude: 1,
            longitude: 1,
          },
        });
        await placeInSol(id);
        const { cityId: _, addressLine2: __, ...noCity } = paris;
        const res = await ctx.request('PUT', `/listings/properties/${id}/location`, {
          body: { ...noCity, city: 'Madrid' },
          token: ctx.employee,
        });
        expect(res.status).toBe(204);
        expect((await read(id)).location).toEqual({
          addressLine1: '5 Rue de Rivoli',
          city: 'Madrid',
          cityId: 'madrid',
          neighbourhoodId: 'sol',
          postalCode: '75001',
          country: 'ES',
          latitude: 48.8566,
          longitude: 2.3522,
        });
      });

      test('400 for a country, a bad coordinate, an unknown city or a missing field', async () => {
        const id = await postProperty(ctx);
        // A schema's own sentence (the 422's notBetween) is the reason as it stands.
        const cases: [Record<string, unknown>, string, string][] = [
          [{ ...paris, country: 'FR' }, 'country', 'is not a field of this body'],
          [
            { ...paris, latitude: 90.0001 },
            'latitude',
            "The input is not between '-90' and '90', inclusively",
          ],
          [
            { ...paris, longitude: -180.0001 },
            'longitude',
            "The input is not between '-180' and '180', inclusively",
          ],
          [{ ...paris, cityId: 'atlantis' }, 'cityId', `must be one of ${CITY_IDS.join(', ')}`],
          [{ ...paris, addressLine1: undefined }, 'addressLine1', 'is required'],
        ];
        for (const [body, name, reason] of cases) {
          const res = await ctx.request('PUT', `/listings/properties/${id}/location`, {
            body,
            token: ctx.employee,
          });
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest([name, reason]));
        }
        expect((await read(id)).location.cityId).toBe('madrid');
      });

      test('the address search follows the move', async () => {
        const id = await postProperty(ctx);
        await ctx.request('PUT', `/listings/properties/${id}/location`, {
          body: { ...paris, addressLine1: 'Zzyzx Road 1' },
          token: ctx.employee,
        });
        const found = await ctx.request<{ total: number }>(
          'GET',
          '/listings/properties?address=zzyzx',
          { token: ctx.employee },
        );
        expect(found.body.total).toBe(1);
      });

      authCases('PUT', '/location', paris);
    });

    describe('PUT /listings/properties/{id}/neighbourhood', () => {
      const assign = (id: string, neighbourhoodId: string, token = ctx.employee) =>
        ctx.request('PUT', `/listings/properties/${id}/neighbourhood`, {
          body: { neighbourhoodId },
          token,
        });

      test('204 and the neighbourhood is set', async () => {
        await ctx.request('PUT', '/listings/neighbourhoods/malasana', {
          body: { cityId: 'madrid', name: 'Malasaña' },
          token: ctx.employee,
        });
        const id = await postProperty(ctx);
        const res = await assign(id, 'malasana', ctx.customer);
        expect(res.status).toBe(204);
        expect((await read(id)).location.neighbourhoodId).toBe('malasana');
      });

      test('409 for an unknown neighbourhood, one of another city, or an archived property', async () => {
        await ctx.request('PUT', '/listings/neighbourhoods/marais', {
          body: { cityId: 'paris', name: 'Le Marais' },
          token: ctx.employee,
        });
        const id = await postProperty(ctx);
        for (const neighbourhoodId of ['nowhere', 'marais']) {
          const res = await assign(id, neighbourhoodId);
          expect(res.status).toBe(409);
          expect(res.body).toEqual(problemOf(409));
        }
        await ctx.request('PUT', '/listings/neighbourhoods/sol', {
          body: { cityId: 'madrid', name: 'Sol' },
          token: ctx.employee,
        });
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        expect((await assign(id, 'sol')).status).toBe(409);
        expect((await read(id)).location.neighbourhoodId).toBeNull();
      });

      test('400 for a missing neighbourhoodId', async () => {
        const id = await postProperty(ctx);
        const res = await ctx.request('PUT', `/listings/properties/${id}/neighbourhood`, {
          body: {},
          token: ctx.employee,
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(badRequest(['neighbourhoodId', 'is required']));
      });

      authCases('PUT', '/neighbourhood', { neighbourhoodId: 'sol' });
    });

    describe('PUT /listings/properties/{id}/owner', () => {
      test('204 and the owner changes (employee)', async () => {
        const id = await postProperty(ctx);
        const res = await ctx.request('PUT', `/listings/properties/${id}/owner`, {
          body: { ownerId: 'owner-9' },
          token: ctx.employee,
        });
        expect(res.status).toBe(204);
        expect((await read(id)).ownerId).toBe('owner-9');
      });

      test('403 for a customer, even its own property, even with a bad body', async () => {
        const id = await postProperty(ctx);
        for (const body of [{ ownerId: 'owner-9' }, {}])
          await expectCustomerRefused(ctx, [`PUT /listings/properties/${id}/owner`], {
            body,
            token: ctx.customer,
          });
        expect((await read(id)).ownerId).toBe(OWNER);
      });

      test('404 for a missing property, 400 for a bad body, 401 without a token', async () => {
        const missing = await ctx.request('PUT', `/listings/properties/${MISSING}/owner`, {
          body: { ownerId: 'x' },
          token: ctx.employee,
        });
        expect(missing.status).toBe(404);
        const id = await postProperty(ctx);
        const bad = await ctx.request('PUT', `/listings/properties/${id}/owner`, {
          body: { ownerId: '' },
          token: ctx.employee,
        });
        expect(bad.status).toBe(400);
        const anonymous = await ctx.request('PUT', `/listings/properties/${id}/owner`, {
          body: { ownerId: 'x' },
        });
        expect(anonymous.status).toBe(401);
      });
    });

    describe('PUT /listings/properties/{id}/information', () => {
      test('204; both fields replaced, an omitted year cleared', async () => {
        const id = await postProperty(ctx);
        const set = await ctx.request('PUT', `/listings/properties/${id}/information`, {
          body: { isVisitable: true, yearOfConstruction: 1920 },
          token: ctx.customer,
        });
        expect(set.status).toBe(204);
        expect(await read(id)).toMatchObject({ isVisitable: true, yearOfConstruction: 1920 });
        await ctx.request('PUT', `/listings/properties/${id}/information`, {
          body: { isVisitable: false },
          token: ctx.customer,
        });
        const after = await read(id);
        expect(after.isVisitable).toBe(false);
        expect('yearOfConstruction' in after).toBe(false);
      });

      test('400 for a missing isVisitable or a bad year', async () => {
        const id = await postProperty(ctx);
        for (const [body, name, reason] of [
          [{}, 'isVisitable', 'is required'],
          [
            { isVisitable: true, yearOfConstruction: 'old' },
            'yearOfConstruction',
            'must be a number',
          ],
        ] as const) {
          const res = await ctx.request('PUT', `/listings/properties/${id}/information`, {
            body,
            token: ctx.employee,
          });
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest([name, reason]));
        }
      });

      authCases('PUT', '/information', { isVisitable: true });
    });

    describe('a failed write leaves the database as it was', () => {
      test('409 archive of an archived property changes no row', async () => {
        const id = await postProperty(ctx, { totalUnits: 3 });
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        const snapshot = () =>
          ctx.query('SELECT * FROM units WHERE property_id = ? ORDER BY id', id);
        const before = [await snapshot(), await read(id), await ctx.count('units')];
        await ctx.request('DELETE', `/listings/properties/${id}`, { token: ctx.employee });
        expect([await snapshot(), await read(id), await ctx.count('units')]).toEqual(before);
      });
    });
  });
}
