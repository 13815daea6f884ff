import { beforeAll, describe, expect, test } from 'bun:test';
import { CITY_COUNTRIES } from '@/listings/cities';
import type { Property } from '@/listings/properties/schemas';
import { problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { OTHER_OWNER, postProperty } from './support';

for (const store of storesUnderTest()) {
  store.describe('GET /listings/properties/{id}', () => {
    let ctx: ListingsTestApp;
    let id: string;
    beforeAll(async () => {
      ctx = await store.app();
      id = await postProperty(ctx);
    });

    describe('happy', () => {
      test('needs no token', async () => {
        const res = await ctx.request<Property>('GET', `/listings/properties/${id}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toStartWith('application/json');
        expect(res.body.id).toBe(id);
      });

      test('the owner and employees read it', async () => {
        for (const token of [ctx.customer, ctx.employee]) {
          const res = await ctx.request<Property>('GET', `/listings/properties/${id}`, { token });
          expect(res.status).toBe(200);
          expect(res.body.id).toBe(id);
        }
      });

      test('country is derived from cityId for all 106 city ids', async () => {
        expect(Object.keys(CITY_COUNTRIES)).toHaveLength(106);
        expect(CITY_COUNTRIES).toMatchObject({
          madrid: 'ES',
          london: 'GB',
          dubai: 'AE',
          montreal: 'CA',
          saint_julians: 'MT',
          istanbul: 'TR',
        });
        for (const [cityId, country] of Object.entries(CITY_COUNTRIES)) {
          const created = await postProperty(ctx, {
            location: {
              addressLine1: 'a',
              city: cityId,
              cityId,
              postalCode: '1',
              latitude: 0,
              longitude: 0,
            },
          });
          const res = await ctx.request<Property>('GET', `/listings/properties/${created}`);
          expect([cityId, res.body.location.country]).toEqual([cityId, country]);
        }
      });
    });

    describe('error', () => {
      test('404 for an unknown id', async () => {
        const res = await ctx.request(
          'GET',
          '/listings/properties/01900000-0000-7000-8000-000000000000',
        );
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404));
      });
    });

    describe('auth', () => {
      test('401 for an invalid token, even on this public read', async () => {
        for (const token of ['not-a-jwt', 'a.b.c']) {
          const res = await ctx.request('GET', `/listings/properties/${id}`, { token });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        }
      });

      test('401 for an expired token', async () => {
        const expired = await ctx.tokenFor('employee-1', 'employee', 1);
        ctx.clock.advance(120_000);
        const res = await ctx.request('GET', `/listings/properties/${id}`, { token: expired });
        expect(res.status).toBe(401);
      });

      describe('an archived property', () => {
        const archive = async (target: string) => {
          const res = await ctx.request('DELETE', `/listings/properties/${target}`, {
            token: ctx.customer,
          });
          expect(res.status).toBe(204);
        };
        const read = (target: string, token?: string, headers: Record<string, string> = {}) =>
          ctx.request('GET', `/listings/properties/${target}`, { token, headers });

        test('404 without a token, live again after unarchiving', async () => {
          const target = await postProperty(ctx);
          // Read once while live, in the fast lane: the read cache holds it.
          const fastAnswers = ctx.lanes.fast;
          expect((await read(target)).status).toBe(200);
          expect(ctx.lanes.fast).toBe(fastAnswers + 1);
          await archive(target);
          for (let i = 0; i < 2; i++) {
            const res = await read(target);
            expect([res.status, res.body]).toEqual([404, problemOf(404)]);
          }
          const unarchived = await ctx.request('POST', `/listings/properties/${target}/unarchive`, {
            token: ctx.customer,
          });
          expect(unarchived.status).toBe(204);
          expect((await read(target)).status).toBe(200);
        });

        test('its owner and employees still read it, and that read is not shown to anyone else', async () => {
          const target = await postProperty(ctx);
          await archive(target);
          for (const token of [ctx.customer, ctx.employee]) {
            const res = await read(target, token);
            const { id: seen, archived } = res.body as Property;
            expect([res.status, seen, archived]).toEqual([200, target, true]);
          }
          // The owner's read is cached now: an anonymous reader, even naming its ETag, gets 404.
          const etag = (await read(target, ctx.customer)).headers.get('etag')!;
          const asked: Record<string, string>[] = [{}, { 'if-none-match': etag }];
          for (const headers of asked) {
            const res = await read(target, undefined, headers);
            expect([res.status, res.body]).toEqual([404, problemOf(404)]);
          }
          const other = await read(target, await ctx.tokenFor(OTHER_OWNER, 'customer'));
          expect([other.status, other.body]).toEqual([404, problemOf(404)]);
        });
      });

      test("404 for another owner's customer (existence not revealed)", async () => {
        const other = await ctx.tokenFor(OTHER_OWNER, 'customer');
        const res = await ctx.request('GET', `/listings/properties/${id}`, { token: other });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404));
      });
    });
  });
}
