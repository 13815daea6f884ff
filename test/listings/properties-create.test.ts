import { beforeAll, describe, expect, test } from 'bun:test';
import { CITY_IDS } from '@/listings/cities';
import { Property } from '@/listings/properties/schemas';
import { badRequest, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { OTHER_OWNER, OWNER, propertyBody } from './support';

const REQUIRED = { isEmpty: "Value is required and can't be empty" };
/** The fixed sentence, then every value that would have been accepted. */
const notInArray = (allowed: readonly string[]) => ({
  notInArray: `The input was not found in the haystack; allowed: ${allowed.join(', ')}`,
});
const TYPE_NOT_IN_ARRAY = notInArray(['apartment', 'studio', 'roomShared', 'residence']);
const between = (min: number, max: number) => ({
  notBetween: `The input is not between '${min}' and '${max}', inclusively`,
});
const GREATER = { greaterThanTotalUnits: 'The rentableUnits must not be greater than totalUnits' };
const NOT_ALLOWED = { notAllowed: 'The field is not allowed' };
const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const unprocessable = (validationMessages: unknown) => ({
  ...problemOf(422),
  validationMessages,
});

for (const store of storesUnderTest()) {
  store.describe('creates', () => {
    let ctx: ListingsTestApp;
    beforeAll(async () => {
      ctx = await store.app();
    });

    describe.each([
      ['/listings/properties', (id: string) => `/properties/${id}`, 'outbound'],
      ['/listings/public/properties', (id: string) => `/listings/properties/${id}`, 'inbound'],
    ] as const)('POST %s', (path, location, source) => {
      const units = { totalUnits: 3, rentableUnits: 2 };

      describe('happy', () => {
        test('201, no body, Location, and the property reads back field by field', async () => {
          const body = propertyBody({
            ...units,
            type: 'roomShared',
            yearOfConstruction: 1998,
            isVisitable: true,
            location: {
              addressLine1: 'Calle Mayor 5',
              addressLine2: '3º B',
              city: 'Madrid',
              cityId: 'madrid',
              postalCode: '28013',
              latitude: 40.4168,
              longitude: -3.7038,
            },
          });
          const res = await ctx.request('POST', path, { body, token: ctx.employee });
          expect(res.status).toBe(201);
          expect(res.text).toBe('');
          const id = res.headers.get('location')!.split('/').pop()!;
          expect(id).toMatch(UUIDV7);
          expect(res.headers.get('location')).toBe(location(id));

          const read = await ctx.request<Property>('GET', `/listings/properties/${id}`);
          expect(read.status).toBe(200);
          const now = new Date(ctx.clock()).toISOString();
          expect(read.body).toEqual({
            id,
            type: 'roomShared',
            location: {
              addressLine1: 'Calle Mayor 5',
              addressLine2: '3º B',
              city: 'Madrid',
              cityId: 'madrid',
              neighbourhoodId: null,
              postalCode: '28013',
              country: 'ES',
              latitude: 40.4168,
              longitude: -3.7038,
            },
            ownerId: OWNER,
            totalUnits: 3,
            rentableUnits: 2,
            publishedUnits: 0,
            verified: false,
            yearOfConstruction: 1998,
            isVisitable: true,
            source,
            archived: false,
            published: false,
            createdAt: now,
            updatedAt: now,
          });
          expect(Property.safeParse(read.body).success).toBe(true);
          expect(Object.keys(read.body)).toEqual([
            'id',
            'type',
            'location',
            'ownerId',
            'totalUnits',
            'rentableUnits',
            'publishedUnits',
            'verified',
            'yearOfConstruction',
            'isVisitable',
            'source',
            'archived',
            'published',
            'createdAt',
            'updatedAt',
          ]);
        });

        test('units are created as records: the first rentableUnits rentable, none published', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({ totalUnits: 4, rentableUnits: 1 }),
            token: ctx.employee,
          });
          const id = res.headers.get('location')!.split('/').pop()!;
          const units = await ctx.request<{ _embedded: { 'svc:units': { rentable: boolean }[] } }>(
            'GET',
            `/listings/properties/${id}/units`,
            { token: ctx.employee },
          );
          expect(units.body._embedded['svc:units'].map((unit) => unit.rentable)).toEqual([
            true,
            false,
            false,
            false,
          ]);
        });

        test('a customer creates its own property', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody(units),
            token: ctx.customer,
          });
          expect(res.status).toBe(201);
        });

        test('unset optional fields are omitted', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody(units),
            token: ctx.employee,
          });
          const id = res.headers.get('location')!.split('/').pop()!;
          const read = await ctx.request<Property>('GET', `/listings/properties/${id}`);
          expect('yearOfConstruction' in read.body).toBe(false);
          expect('addressLine2' in read.body.location).toBe(false);
          expect(read.body.location.neighbourhoodId).toBeNull();
          expect(read.body.isVisitable).toBe(false);
        });
      });

      describe('error', () => {
        test('422 names every missing required field with isEmpty', async () => {
          const res = await ctx.request('POST', path, { body: {}, token: ctx.employee });
          expect(res.status).toBe(422);
          expect(res.headers.get('content-type')).toBe('application/problem+json');
          const messages: Record<string, unknown> = {
            type: REQUIRED,
            location: REQUIRED,
            ownerId: REQUIRED,
          };
          if (path === '/listings/public/properties') {
            messages.totalUnits = REQUIRED;
            messages.rentableUnits = REQUIRED;
          }
          expect(res.body).toEqual(unprocessable(messages));
        });

        test('422 names every missing location field, nested', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({ ...units, location: {} }),
            token: ctx.employee,
          });
          expect(res.body).toEqual(
            unprocessable({
              location: {
                addressLine1: REQUIRED,
                city: REQUIRED,
                postalCode: REQUIRED,
                latitude: REQUIRED,
                longitude: REQUIRED,
                cityId: REQUIRED,
              },
            }),
          );
        });

        test('422 for each enum wrong, out-of-range coordinates and a country', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({
              ...units,
              type: 'castle',
              location: {
                addressLine1: 'a',
                city: 'b',
                cityId: 'atlantis',
                postalCode: 'c',
                latitude: 90.0001,
                longitude: -180.0001,
                country: 'ES',
              },
            }),
            token: ctx.employee,
          });
          expect(res.status).toBe(422);
          expect(res.body).toEqual(
            unprocessable({
              type: TYPE_NOT_IN_ARRAY,
              location: {
                latitude: between(-90, 90),
                longitude: between(-180, 180),
                cityId: notInArray(CITY_IDS),
                country: NOT_ALLOWED,
              },
            }),
          );
        });

        test.each([
          [-90.0001, 180.0001],
          [90.0001, -180.0001],
        ])('422 for latitude %p / longitude %p', async (latitude, longitude) => {
          const body = propertyBody(units);
          const res = await ctx.request('POST', path, {
            body: { ...body, location: { ...body.location, latitude, longitude } },
            token: ctx.employee,
          });
          expect(res.body).toEqual(
            unprocessable({
              location: { latitude: between(-90, 90), longitude: between(-180, 180) },
            }),
          );
        });

        test.each([0, 31])('422 for totalUnits %p', async (totalUnits) => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({ totalUnits, rentableUnits: 1 }),
            token: ctx.employee,
          });
          expect(res.body).toEqual(unprocessable({ totalUnits: between(1, 30) }));
        });

        test.each([0, 31])('422 for rentableUnits %p', async (rentableUnits) => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({ totalUnits: 30, rentableUnits }),
            token: ctx.employee,
          });
          expect(res.body).toEqual(unprocessable({ rentableUnits: between(1, 30) }));
        });

        test('422 for rentableUnits above totalUnits', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({ totalUnits: 2, rentableUnits: 3 }),
            token: ctx.employee,
          });
          expect(res.body).toEqual(unprocessable({ rentableUnits: GREATER }));
        });

        test('422 for rentableUnits above totalUnits reported beside other failures', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({ type: 'castle', totalUnits: 2, rentableUnits: 3 }),
            token: ctx.employee,
          });
          expect(res.body).toEqual(
            unprocessable({ type: TYPE_NOT_IN_ARRAY, rentableUnits: GREATER }),
          );
        });

        test('422 for wrong types and unknown fields', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody({
              ...units,
              ownerId: 7,
              isVisitable: 'yes',
              yearOfConstruction: 1999.5,
              verified: true,
            }),
            token: ctx.employee,
          });
          expect(res.body).toEqual(
            unprocessable({
              ownerId: { invalidType: 'The input must be of type string' },
              isVisitable: { invalidType: 'The input must be of type boolean' },
              yearOfConstruction: { invalidType: 'The input must be an integer' },
              verified: NOT_ALLOWED,
            }),
          );
        });

        test('422 when a customer names another owner, and nothing is written', async () => {
          const before = [await ctx.count('properties'), await ctx.count('units')];
          const res = await ctx.request('POST', path, {
            body: propertyBody({ ...units, ownerId: OTHER_OWNER }),
            token: ctx.customer,
          });
          expect(res.status).toBe(422);
          expect(res.body).toEqual(
            unprocessable({
              ownerId: { notAllowed: 'A customer may only create its own properties' },
            }),
          );
          expect([await ctx.count('properties'), await ctx.count('units')]).toEqual(before);
        });

        test('a 422 create leaves no row in properties or units', async () => {
          const fresh = await store.app();
          const res = await fresh.request('POST', path, {
            body: propertyBody({ totalUnits: 0 }),
            token: fresh.employee,
          });
          expect(res.status).toBe(422);
          expect(await fresh.count('properties')).toBe(0);
          expect(await fresh.count('units')).toBe(0);
        });

        test.each([
          ['{"type": ', 'is not valid JSON'],
          ['[]', 'must be an object'],
          ['null', 'must be an object'],
          ['"x"', 'must be an object'],
        ])('400 for the body %s', async (raw, reason) => {
          const res = await ctx.request('POST', path, {
            raw,
            token: ctx.employee,
            headers: { 'content-type': 'application/json' },
          });
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest(['body', reason]));
        });
      });

      describe('media type', () => {
        test('415 for a body that is not JSON', async () => {
          const res = await ctx.request('POST', path, {
            raw: 'type=apartment',
            token: ctx.employee,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          });
          expect(res.status).toBe(415);
          expect((res.body as { title: string }).title).toBe('Unsupported Media Type');
        });
      });

      describe('auth', () => {
        test('401 without a token, even with an invalid body', async () => {
          for (const body of [propertyBody(units), {}]) {
            const res = await ctx.request('POST', path, { body });
            expect(res.status).toBe(401);
            expect(res.body).toEqual(problemOf(401));
          }
        });

        test('401 with an invalid token', async () => {
          const res = await ctx.request('POST', path, {
            body: propertyBody(units),
            token: 'a.b.c',
          });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        });
      });
    });

    describe('POST /listings/properties defaults', () => {
      test('totalUnits defaults to 1 and rentableUnits to totalUnits', async () => {
        const res = await ctx.request('POST', '/listings/properties', {
          body: propertyBody(),
          token: ctx.employee,
        });
        const id = res.headers.get('location')!.split('/').pop()!;
        const read = await ctx.request<Property>('GET', `/listings/properties/${id}`);
        expect(read.body).toMatchObject({ totalUnits: 1, rentableUnits: 1, publishedUnits: 0 });
        const five = await ctx.request('POST', '/listings/properties', {
          body: propertyBody({ totalUnits: 5 }),
          token: ctx.employee,
        });
        const fiveId = five.headers.get('location')!.split('/').pop()!;
        const readFive = await ctx.request<Property>('GET', `/listings/properties/${fiveId}`);
        expect(readFive.body).toMatchObject({ totalUnits: 5, rentableUnits: 5 });
      });

      test('rentableUnits 2 without totalUnits (default 1) → 422 greaterThanTotalUnits', async () => {
        const res = await ctx.request('POST', '/listings/properties', {
          body: propertyBody({ rentableUnits: 2 }),
          token: ctx.employee,
        });
        expect(res.body).toEqual(unprocessable({ rentableUnits: GREATER }));
      });
    });
  });
}
