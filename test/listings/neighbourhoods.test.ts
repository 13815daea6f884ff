import { beforeAll, describe, expect, test } from 'bun:test';
import { expectAuthGuards } from '../support/auth-guards';
import { badRequest, badRequestNaming, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { postProperty } from './support';

for (const store of storesUnderTest()) {
  store.describe('catalogue', () => {
    let ctx: ListingsTestApp;
    beforeAll(async () => {
      ctx = await store.app();
    });

    const put = (id: string, body: unknown, token = ctx.employee) =>
      ctx.request('PUT', `/listings/neighbourhoods/${id}`, { body, token });

    describe('neighbourhoods', () => {
      describe('happy', () => {
        test('PUT creates and replaces (204); GET lists by city then name, filtered by cityId', async () => {
          expect((await put('sol', { cityId: 'madrid', name: 'Sol' })).status).toBe(204);
          expect((await put('chueca', { cityId: 'madrid', name: 'Chueca' })).status).toBe(204);
          expect((await put('marais', { cityId: 'paris', name: 'Marais' })).status).toBe(204);
          const replaced = await put('marais', { cityId: 'paris', name: 'Le Marais' });
          expect(replaced.status).toBe(204);
          expect(replaced.text).toBe('');

          const all = await ctx.request('GET', '/listings/neighbourhoods', { token: ctx.customer });
          expect(all.status).toBe(200);
          expect(all.body).toEqual({
            neighbourhoods: [
              { id: 'chueca', cityId: 'madrid', name: 'Chueca' },
              { id: 'sol', cityId: 'madrid', name: 'Sol' },
              { id: 'marais', cityId: 'paris', name: 'Le Marais' },
            ],
          });
          const paris = await ctx.request('GET', '/listings/neighbourhoods?cityId=paris', {
            token: ctx.employee,
          });
          expect(paris.body).toEqual({
            neighbourhoods: [{ id: 'marais', cityId: 'paris', name: 'Le Marais' }],
          });
          const none = await ctx.request('GET', '/listings/neighbourhoods?cityId=rome', {
            token: ctx.employee,
          });
          expect(none.body).toEqual({ neighbourhoods: [] });
        });
      });

      describe('error', () => {
        test('400 for a bad body, id or cityId', async () => {
          for (const [res, name] of [
            [await put('x', { cityId: 'atlantis', name: 'X' }), 'cityId'],
            [await put('x', { cityId: 'madrid' }), 'name'],
            [await put('x', { cityId: 'madrid', name: 'X', extra: 1 }), 'extra'],
            [await put('bad%20id', { cityId: 'madrid', name: 'X' }), 'id'],
            [
              await ctx.request('GET', '/listings/neighbourhoods?cityId=atlantis', {
                token: ctx.employee,
              }),
              'cityId',
            ],
          ] as const) {
            expect(res.status).toBe(400);
            expect(res.body).toEqual(badRequestNaming(name));
          }
          const res = await put('bad%20id', { cityId: 'madrid', name: 'X' });
          expect(res.body).toEqual(
            badRequest([
              'id',
              'must be 1 to 64 letters, digits, _ and -, not first _ or - (got "bad id")',
            ]),
          );
        });

        test('409 moving a neighbourhood in use to another city', async () => {
          await put('lavapies', { cityId: 'madrid', name: 'Lavapiés' });
          const id = await postProperty(ctx);
          await ctx.request('PUT', `/listings/properties/${id}/neighbourhood`, {
            body: { neighbourhoodId: 'lavapies' },
            token: ctx.employee,
          });
          const res = await put('lavapies', { cityId: 'paris', name: 'Lavapiés' });
          expect(res.status).toBe(409);
          expect(res.body).toEqual(problemOf(409));
          expect((await put('lavapies', { cityId: 'madrid', name: 'Lavapies' })).status).toBe(204);
        });
      });

      describe('auth', () => {
        test('403 for a customer writing the catalogue; 401 without a token', async () => {
          const body = { cityId: 'madrid', name: 'X' };
          await expectAuthGuards(ctx, 'employee', ['PUT /listings/neighbourhoods/x'], {
            body,
            token: ctx.customer,
          });
          await expectAuthGuards(ctx, 'any', ['GET /listings/neighbourhoods']);
        });
      });
    });
  });
}
