import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../../support/harness';
import { expectSameAnswers, type LaneCase, lanesOf } from '../../support/lanes';
import { READ_CACHE, sqliteOnly } from '../../support/postgres-mode';
import { addProperty, listingsContext, OTHER_OWNER, OWNER, postProperty } from '../support';

const ctx = await listingsContext();
for (let i = 0; i < 7; i++) await addProperty(ctx, { ownerId: i % 3 ? OWNER : OTHER_OWNER });
const LONDON = {
  ...{ addressLine1: '1 Baker St', postalCode: 'NW1', latitude: 51.5, longitude: -0.15 },
  ...{ cityId: 'london' as const, city: 'London' },
};
await addProperty(ctx, { type: 'studio', location: LONDON });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const LIST = '/listings/properties';
const totalOf = async (token: string, query = '') =>
  (await ctx.request<{ total: number }>('GET', `${LIST}${query}`, { token })).body.total;

describe('GET /listings/properties: fast lane', () => {
  test('answers 200 in the fast lane and the errors in the full pipeline, byte for byte the same', async () => {
    const cases: LaneCase[] = [
      [LIST, bearer(ctx.employee)],
      [LIST, bearer(ctx.customer)],
      [LIST, bearer(ctx.otherCustomer)],
      [`${LIST}?itemsPerPage=2&page=2&sort=-_id`, bearer(ctx.employee)],
      [`${LIST}?cityIds=london&type=studio`, bearer(ctx.employee)],
      [`${LIST}?cityIds[]=london&cityIds[]=madrid`, bearer(ctx.employee)],
      [`${LIST}?features[0][name]=pool&features[0][value]=true`, bearer(ctx.employee)],
      [`${LIST}?itemsPerPage=0`, bearer(ctx.employee)],
      [`${LIST}?type=castle`, bearer(ctx.employee)],
      [`${LIST}?sort=nope`, bearer(ctx.customer)],
      [LIST, {}],
      [LIST, { authorization: 'Bearer forged' }],
      [`${LIST}/`, bearer(ctx.employee)],
      [LIST, { cookie: 'session=unknown' }],
    ];
    const answers = await expectSameAnswers(ctx, cases);
    expect(lanesOf(answers)).toEqual([
      ...['200 fast', '200 fast', '200 fast', '200 fast', '200 fast', '200 fast', '200 fast'],
      ...['400 full', '400 full', '400 full', '401 full', '401 full', '200 full', '401 full'],
    ]);
    expect(answers.slice(0, 3).map((answer) => JSON.parse(answer.body).total)).toEqual([8, 5, 3]);
  });
});

describe('GET /listings/properties?paging=keyset: fast lane and read cache', () => {
  const keyset = `${LIST}?paging=keyset&itemsPerPage=3`;
  const nextOf = async (path: string) =>
    (
      await ctx.request<{ _links: { next?: { href: string } } }>('GET', path, {
        token: ctx.employee,
      })
    ).body._links.next!.href;

  test('keyset pages and their errors: the same bytes from both lanes', async () => {
    const second = await nextOf(keyset);
    const answers = await expectSameAnswers(ctx, [
      [keyset, bearer(ctx.employee)],
      [second, bearer(ctx.employee)],
      [`${keyset}&total=true&sort=-totalUnits`, bearer(ctx.customer)],
      [`${second}&cityIds=madrid`, bearer(ctx.employee)],
      [`${LIST}?paging=keyset&page=2`, bearer(ctx.employee)],
    ]);
    expect(lanesOf(answers)).toEqual(['200 fast', '200 fast', '200 fast', '400 full', '400 full']);
  });

  sqliteOnly.test(
    READ_CACHE,
    'a remembered keyset page keeps the feed cursor it was read with, until a write changes it',
    async () => {
      const second = await nextOf(keyset);
      const read = async () =>
        (await ctx.request<{ feedCursor: string }>('GET', second, { token: ctx.employee })).body;
      const first = await read();
      const hits = ctx.deps.readCache.hits;
      // A static page event moves the feed but no property: the page and its cursor are kept.
      const page = await ctx.request('PUT', '/content/static-pages/about', {
        token: ctx.employee,
        body: { title: 'About', content: 'x', published: true, language: 'en' },
      });
      expect(page.status).toBeLessThan(300);
      expect(await read()).toEqual(first);
      expect(ctx.deps.readCache.hits).toBe(hits + 1);
      await postProperty(ctx);
      const after = await read();
      expect(after.feedCursor).not.toBe(first.feedCursor);
    },
  );
});

describe('GET /listings/properties: CORS', () => {
  test('with CORS on, a request naming an Origin is answered by the full pipeline', async () => {
    const cors = createTestApp({ env: { CORS_ORIGINS: 'https://app.example' } });
    const token = { authorization: `Bearer ${await cors.tokenFor('employee-1', 'employee')}` };
    const answers = await expectSameAnswers(cors, [
      [LIST, { ...token, origin: 'https://app.example' }],
      [LIST, token],
    ]);
    expect(lanesOf(answers)).toEqual(['200 full', '200 fast']);
    expect(answers[0]!.headers.vary).toBe('Origin');
  });
});

describe('GET /listings/properties: remembered answers', () => {
  test('a create through the service shows in the next page', async () => {
    const before = await totalOf(ctx.employee);
    await postProperty(ctx);
    expect(await totalOf(ctx.employee)).toBe(before + 1);
  });

  sqliteOnly.test(
    READ_CACHE,
    'a write through the same connection outside the routes shows at once',
    async () => {
      const before = await totalOf(ctx.employee, '?cityIds=london');
      await addProperty(ctx, { location: LONDON });
      expect(await totalOf(ctx.employee, '?cityIds=london')).toBe(before + 1);
    },
  );

  sqliteOnly.test(READ_CACHE, 'a commit by another connection shows at once', async () => {
    const before = await totalOf(ctx.employee, '?type=studio');
    const other = new Database(ctx.config.databasePath);
    try {
      other.run(
        "UPDATE properties SET type = 'studio' WHERE type = 'apartment' AND city_id = 'madrid' AND rowid = (SELECT min(rowid) FROM properties WHERE city_id = 'madrid')",
      );
    } finally {
      other.close();
    }
    expect(await totalOf(ctx.employee, '?type=studio')).toBe(before + 1);
  });
});
