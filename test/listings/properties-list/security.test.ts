import { beforeAll, describe, expect, test } from 'bun:test';
import { problemOf } from '../../support/harness';
import { storesUnderTest } from '../stores';
import { addProperty, listingsContext, OTHER_OWNER, OWNER } from '../support';
import { type PropertyListFixture, seedPropertyList } from './fixture';

for (const store of storesUnderTest()) {
  store.describe('GET /listings/properties', () => {
    let { ctx, madrid, paris, london, berlin, list, idsOf } = {} as PropertyListFixture;
    beforeAll(async () => {
      ({ ctx, madrid, paris, london, berlin, list, idsOf } = await seedPropertyList(store));
    });

    describe('auth', () => {
      test('401 without a token or with an invalid one', async () => {
        for (const token of [undefined, 'a.b.c']) {
          const res = await ctx.request('GET', '/listings/properties', { token });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        }
      });

      test("a customer's list is silently limited to its own properties", async () => {
        expect(await idsOf('', ctx.customer)).toEqual([madrid, london]);
        expect((await list('', ctx.customer)).total).toBe(2);
        expect(await idsOf('?type=apartment', ctx.customer)).toEqual([madrid]);
        expect(await idsOf(`?ownerId=${OTHER_OWNER}`, ctx.customer)).toEqual([]);
        expect(await idsOf(`?id=${paris}`, ctx.customer)).toEqual([]);
        expect(await idsOf(`?ids=${paris},${berlin}`, ctx.otherCustomer)).toEqual([paris, berlin]);
      });
    });
  });
}

describe('GET /listings/properties: remembered answers', () => {
  test("one customer's page is never another's", async () => {
    const ctx = await listingsContext();
    for (let i = 0; i < 7; i++) await addProperty(ctx, { ownerId: i % 3 ? OWNER : OTHER_OWNER });
    const totalOf = async (token: string) =>
      (await ctx.request<{ total: number }>('GET', '/listings/properties', { token })).body.total;
    const mine = await totalOf(ctx.customer);
    const theirs = await totalOf(ctx.otherCustomer);
    const all = await totalOf(ctx.employee);
    expect(new Set([mine, theirs, all]).size).toBe(3);
    expect(mine + theirs).toBeLessThanOrEqual(all);
  });
});
