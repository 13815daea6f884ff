import { expect, test } from 'bun:test';
import type { Property } from '@/listings/properties/schemas';
import { storesUnderTest } from './stores';
import { OTHER_OWNER, OWNER, propertyBody } from './support';

/**
 * Creates that arrive together share one write transaction (SQLite's group
 * commit, src/db/sqlite/group-commit.ts; one transaction per event-loop turn on
 * PostgreSQL); each still answers as if alone.
 */
for (const store of storesUnderTest()) {
  store.describe('POST /listings/properties, many at once', () => {
    test('every create answers 201 with its own Location and reads back as sent', async () => {
      const ctx = await store.app();
      const streets = Array.from({ length: 40 }, (_, i) => `Calle Concurrente ${i}`);
      const responses = await Promise.all(
        streets.map((addressLine1, i) =>
          ctx.request('POST', i % 2 ? '/listings/properties' : '/listings/public/properties', {
            body: propertyBody({
              totalUnits: (i % 3) + 1,
              rentableUnits: 1,
              location: { ...propertyBody().location, addressLine1 },
            }),
            token: ctx.employee,
          }),
        ),
      );
      expect(responses.map((res) => res.status)).toEqual(streets.map(() => 201));
      const ids = responses.map((res) => res.headers.get('location')!.split('/').pop()!);
      expect(new Set(ids).size).toBe(streets.length);
      for (const [i, id] of ids.entries()) {
        const read = await ctx.request<Property>('GET', `/listings/properties/${id}`);
        expect(read.status).toBe(200);
        expect(read.body.location.addressLine1).toBe(streets[i]!);
        expect(read.body.totalUnits).toBe((i % 3) + 1);
      }
      expect(await ctx.count('units')).toBe(streets.reduce((sum, _, i) => sum + (i % 3) + 1, 0));
      // The address index (kept by a trigger) has every row of the shared transaction.
      const search = await ctx.request<{ total: number }>(
        'GET',
        `/listings/properties?address=${encodeURIComponent('concurrente 1')}`,
        { token: ctx.employee },
      );
      expect(search.body.total).toBe(11); // 1 and 10..19
    });

    test('a refused create among others answers 422 alone and writes nothing', async () => {
      const ctx = await store.app();
      const bodies = [
        propertyBody({ ownerId: OWNER }),
        propertyBody({ ownerId: OTHER_OWNER }),
        propertyBody({ ownerId: OWNER, totalUnits: 2 }),
      ];
      const responses = await Promise.all(
        bodies.map((body) =>
          ctx.request('POST', '/listings/properties', { body, token: ctx.customer }),
        ),
      );
      expect(responses.map((res) => res.status)).toEqual([201, 422, 201]);
      expect(responses[1]!.body).toMatchObject({
        validationMessages: {
          ownerId: { notAllowed: 'A customer may only create its own properties' },
        },
      });
      expect(await ctx.count('properties')).toBe(2);
      expect(await ctx.count('units')).toBe(3);
    });
  });
}
