import { beforeAll, expect, test } from 'bun:test';
import type { z } from 'zod';
import { PropertyKeysetPage, type PropertyList } from '@/api/listings/properties/routes';
import { cursorOf } from '@/events/cursor';
import { badRequest, problemOf } from '../support/harness';
import { type ListingsTestApp, storesUnderTest } from './stores';
import { OTHER_OWNER, OWNER } from './support';

type KeysetPage = z.output<typeof PropertyKeysetPage>;
const LIST = '/listings/properties';
const CITIES = ['madrid', 'paris', 'london'] as const;
const TYPES = ['apartment', 'studio', 'residence'] as const;

for (const store of storesUnderTest()) {
  store.describe('GET /listings/properties?paging=keyset', () => {
    let ctx: ListingsTestApp;
    const get = async (path: string, token = ctx.employee) =>
      ctx.request<KeysetPage>('GET', path, { token });

    /** Follows `_links.next` from `query` to the end: every page's body. */
    async function walk(query: string, token = ctx.employee, between?: (n: number) => unknown) {
      const pages: KeysetPage[] = [];
      let path: string | undefined = `${LIST}?paging=keyset&${query}`;
      while (path) {
        const res = await get(path, token);
        expect(res.status).toBe(200);
        expect(PropertyKeysetPage.strict().safeParse(res.body).success).toBe(true);
        pages.push(res.body);
        path = res.body._links.next?.href;
        await between?.(pages.length);
      }
      return pages;
    }
    const idsOf = (pages: KeysetPage[]) =>
      pages.flatMap((page) => page._embedded['svc:properties'].map((p) => p.id));
    /** The ids of page-number paging, one page of 100: the order keyset pages must give. */
    async function byPageNumbers(query: string, token = ctx.employee) {
      const res = await ctx.request<z.output<typeof PropertyList>>(
        'GET',
        `${LIST}?itemsPerPage=100&${query}`,
        { token },
      );
      return res.body._embedded['svc:properties'].map((p) => p.id);
    }

    beforeAll(async () => {
      ctx = await store.app();
      for (let i = 0; i < 23; i++) {
        const city = CITIES[i % 3]!;
        await ctx.makeProperty({
          type: TYPES[i % 3],
          ownerId: i % 4 === 0 ? OTHER_OWNER : OWNER,
          totalUnits: 1 + (i % 4),
          location: {
            addressLine1: `${i} Main St`,
            city,
            cityId: city,
            postalCode: '1000',
            latitude: 1,
            longitude: 1,
          },
          units: Array.from({ length: 1 + (i % 4) }, (_, u) => ({
            rentable: u % 2 === 0,
            features:
              i % 2 ? [{ applicability: 'unit', category: 'c', name: 'pool', value: 'true' }] : [],
          })),
        });
      }
    });

    test('following next gives every property once, in the order of page numbers, for every sort and filter', async () => {
      for (const query of [
        'itemsPerPage=4',
        'itemsPerPage=5&sort=-_id',
        'itemsPerPage=3&sort=type',
        'itemsPerPage=3&sort=-totalUnits',
        'itemsPerPage=2&sort=rentableUnits',
        'itemsPerPage=4&sort=ownerId,-rentableUnits',
        'itemsPerPage=3&sort=-type,totalUnits',
        'itemsPerPage=3&cityIds=madrid,paris&sort=-rentableUnits',
        'itemsPerPage=2&features[0][name]=pool&features[0][value]=true',
        'itemsPerPage=2&features[0][name]=pool&features[0][value]=true&sort=-_id',
        'itemsPerPage=3&type=studio',
        'itemsPerPage=3&ownerId=owner-1&sort=totalUnits',
      ]) {
        const pages = await walk(query);
        const expected = await byPageNumbers(query.replace(/itemsPerPage=\d+&?/, ''));
        expect([query, idsOf(pages)]).toEqual([query, expected]);
        expect(pages.at(-1)!._links.next).toBeUndefined();
        // Full pages but the last; the last page is never empty unless the list is.
        expect(pages.slice(0, -1).every((p) => p.count === Number(/\d+/.exec(query)![0]))).toBe(
          true,
        );
      }
    });

    test('a customer walks its own properties only', async () => {
      const pages = await walk('itemsPerPage=4', ctx.customer);
      expect(idsOf(pages)).toEqual(await byPageNumbers('', ctx.customer));
      expect(idsOf(pages).length).toBe(17);
    });

    test('creates and archives during the walk: every property that existed throughout is seen once', async () => {
      const before = await byPageNumbers('archived=false');
      const archivedMeanwhile: string[] = [];
      const pages = await walk('itemsPerPage=3&archived=false', ctx.employee, async (n) => {
        // A new property in front of the walk and behind it, and an archive behind it.
        await ctx.makeProperty({ ownerId: OWNER });
        if (n === 2) {
          const behind = before[1]!;
          const res = await ctx.request('DELETE', `${LIST}/${behind}`, { token: ctx.employee });
          expect(res.status).toBe(204);
          archivedMeanwhile.push(behind);
        }
      });
      const seen = idsOf(pages);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of before) expect(seen).toContain(id);
      for (const id of archivedMeanwhile)
        await ctx.request('POST', `${LIST}/${id}/unarchive`, { token: ctx.employee });
    });

    test('total only with total=true; links; feedCursor is the feed position of the page', async () => {
      const first = (await get(`${LIST}?paging=keyset&itemsPerPage=2&cityIds=madrid`)).body;
      expect(first.total).toBeUndefined();
      expect(first._links.self.href).toBe(`${LIST}?paging=keyset&itemsPerPage=2&cityIds=madrid`);
      expect(first._links.first.href).toBe(first._links.self.href);
      expect(first._links.next!.href).toStartWith(
        `${LIST}?paging=keyset&itemsPerPage=2&cityIds=madrid&cursor=`,
      );
      const counted = (await get(`${LIST}?paging=keyset&itemsPerPage=2&cityIds=madrid&total=true`))
        .body;
      expect(counted.total).toBe(await byPageNumbers('cityIds=madrid').then((ids) => ids.length));
      const second = (await get(first._links.next!.href)).body;
      expect(second._links.first.href).toBe(first._links.self.href);
      expect(second._links.self.href).toBe(first._links.next!.href);

      // The store's own events table (the app's feed reads SQLite when only the listings are on PostgreSQL).
      const [newest] = await ctx.query<{ id: number }>('SELECT max(id) AS id FROM events');
      const last = { next_cursor: cursorOf(Number(newest!.id)) };
      expect(first.feedCursor).toBe(last.next_cursor!);
      const page = await ctx.request<{ feedCursor: string }>('GET', `${LIST}?itemsPerPage=1`, {
        token: ctx.employee,
      });
      expect(page.body.feedCursor).toBe(last.next_cursor!);
    });

    test('with every event pruned, feedCursor is the last event id ever assigned', async () => {
      const app = await store.app();
      await app.makeProperty({ ownerId: OWNER });
      await app.makeProperty({ ownerId: OWNER });
      const [newest] = await app.query<{ id: number }>('SELECT max(id) AS id FROM events');
      await app.query('DELETE FROM events');
      for (const path of [`${LIST}?paging=keyset`, `${LIST}?ids=none`, LIST]) {
        const res = await app.request<{ feedCursor: string }>('GET', path, { token: app.employee });
        expect([path, res.body.feedCursor]).toEqual([path, cursorOf(Number(newest!.id))]);
      }
    });

    test('a walk in an order writes change that started before the oldest event kept answers 410, as the feed does', async () => {
      const app = await store.app();
      for (let i = 0; i < 3; i++) await app.makeProperty({ ownerId: OWNER, totalUnits: 1 + i });
      const page = async (path: string) =>
        app.request<KeysetPage>('GET', path, { token: app.employee });
      const bySize = (await page(`${LIST}?paging=keyset&itemsPerPage=1&sort=-totalUnits`)).body;
      const byId = (await page(`${LIST}?paging=keyset&itemsPerPage=1`)).body;
      // Kept: the walk goes on.
      expect((await page(bySize._links.next!.href)).status).toBe(200);
      await app.makeProperty({ ownerId: OWNER });
      await app.query('DELETE FROM events');
      const gone = await page(bySize._links.next!.href);
      expect([gone.status, gone.body as unknown]).toEqual([410, problemOf(410)]);
      // The id never changes: a walk in its order needs no change kept.
      expect((await page(byId._links.next!.href)).status).toBe(200);
    });

    test('a walk in an order writes change answers 410 once more than 2,000 changes followed its start, so no page reads an unbounded history', async () => {
      const app = await store.app();
      const id = await app.makeProperty({ ownerId: OWNER, totalUnits: 1 });
      await app.makeProperty({ ownerId: OWNER, totalUnits: 2 });
      const page = async (path: string) =>
        app.request<KeysetPage>('GET', path, { token: app.employee });
      const next = (await page(`${LIST}?paging=keyset&itemsPerPage=1&sort=-totalUnits`)).body._links
        .next!.href;
      const change = (units: number) =>
        app.query('UPDATE properties SET total_units = ? WHERE id = ?', units, id);
      for (let units = 2; units <= 2001; units++) await change(units);
      expect((await page(next)).status).toBe(200);
      await change(2002);
      const gone = await page(next);
      expect([gone.status, gone.body as unknown]).toEqual([410, problemOf(410)]);
    });

    /** The `next` of the first page, one property a page, of `query` for `token`. */
    const nextOf = async (app: ListingsTestApp, query: string, token: string) =>
      (
        await app.request<KeysetPage>('GET', `${LIST}?paging=keyset&itemsPerPage=1&${query}`, {
          token,
        })
      ).body._links.next!.href;
    /** Sets `total_units` of every property of `owner` to 2, 3, … `upTo`: a change of each a statement. */
    const changeAll = async (app: ListingsTestApp, owner: string, upTo: number) => {
      for (let units = 2; units <= upTo; units++) {
        await app.query('UPDATE properties SET total_units = ? WHERE owner_id = ?', units, owner);
      }
    };

    test("another owner's changes count neither towards a walk confined to one owner nor in its pages", async () => {
      const app = await store.app();
      for (let i = 1; i <= 2; i++) await app.makeProperty({ ownerId: OWNER, totalUnits: i });
      for (let i = 0; i < 30; i++) await app.makeProperty({ ownerId: OTHER_OWNER, totalUnits: 1 });
      const customers = await nextOf(app, 'sort=-totalUnits', app.customer);
      const byOwner = await nextOf(app, `sort=-totalUnits&ownerId=${OWNER}`, app.employee);
      const everyones = await nextOf(app, 'sort=-totalUnits', app.employee);
      // 2,100 changes to another owner's 30 properties.
      await changeAll(app, OTHER_OWNER, 71);
      const customerPage = await app.request<KeysetPage>('GET', customers, { token: app.customer });
      expect(customerPage.status).toBe(200);
      expect(customerPage.body._embedded['svc:properties'][0]!.totalUnits).toBe(1);
      expect((await app.request('GET', byOwner, { token: app.employee })).status).toBe(200);
      // A walk over every owner's properties counts them all.
      const everyone = await app.request('GET', everyones, { token: app.employee });
      expect([everyone.status, everyone.body as unknown]).toEqual([410, problemOf(410)]);
    });

    test("a walk confined to one owner answers 410 past 2,000 of that owner's changes, a property moved to it counted", async () => {
      const app = await store.app();
      for (let i = 0; i < 20; i++) await app.makeProperty({ ownerId: OWNER, totalUnits: 1 });
      const moved = await app.makeProperty({ ownerId: OTHER_OWNER, totalUnits: 1 });
      const next = await nextOf(app, 'sort=totalUnits', app.customer);
      await changeAll(app, OWNER, 101);
      expect((await app.request('GET', next, { token: app.customer })).status).toBe(200);
      // The 2,001st: a move to the owner, kept under the owner it left.
      await app.query('UPDATE properties SET owner_id = ? WHERE id = ?', OWNER, moved);
      const gone = await app.request('GET', next, { token: app.customer });
      expect([gone.status, gone.body as unknown]).toEqual([410, problemOf(410)]);
    });

    test('a property moved to the owner during its walk is found from the change naming the owner it went to', async () => {
      const app = await store.app();
      for (let i = 2; i <= 4; i++) await app.makeProperty({ ownerId: OWNER, totalUnits: i });
      const moved = await app.makeProperty({ ownerId: OTHER_OWNER, totalUnits: 1 });
      const walk = `${LIST}?paging=keyset&itemsPerPage=2&sort=-totalUnits`;
      const first = await app.request<KeysetPage>('GET', walk, { token: app.customer });
      // Changed by the owner it had, then moved: no change of it is kept under the owner now.
      await app.query('UPDATE properties SET total_units = 5 WHERE id = ?', moved);
      await app.query('UPDATE properties SET owner_id = ? WHERE id = ?', OWNER, moved);
      const second = await app.request<KeysetPage>('GET', first.body._links.next!.href, {
        token: app.customer,
      });
      expect(second.status).toBe(200);
      // Placed by its one unit at the walk's start, shown as it is now.
      const properties = second.body._embedded['svc:properties'];
      expect(properties.map((p) => [p.id === moved, p.totalUnits])).toEqual([
        [false, 2],
        [true, 5],
      ]);
      expect(second.body._links.next).toBeUndefined();
    });

    test('a first page served from the cache starts the walk at the feed position of its request', async () => {
      const app = await store.app();
      const at = (city: string, cityId: 'madrid' | 'paris') => ({
        ...{ addressLine1: '1 Main St', city, cityId, postalCode: '1000' },
        ...{ latitude: 1, longitude: 1 },
      });
      const [madrid, paris] = [at('Madrid', 'madrid'), at('Paris', 'paris')];
      for (let i = 1; i <= 2; i++) await app.makeProperty({ totalUnits: i, location: madrid });
      for (let i = 0; i < 30; i++)
        await app.makeProperty({ ownerId: OTHER_OWNER, location: paris });
      const cache = app.deps.readCache;
      await cache.synced();
      const first = `${LIST}?paging=keyset&itemsPerPage=1&sort=-totalUnits&cityIds=madrid`;
      const read = async () => {
        const res = await app.request<KeysetPage>('GET', first, { token: app.employee });
        // The page is written around its properties' bytes: the same as the whole stringified.
        expect(JSON.stringify(res.body)).toBe(res.text);
        return res.body;
      };
      const before = await read();
      expect(cache.size).toBeGreaterThan(0);
      // 2,100 changes in the walk's scope (an employee's: every owner), none in Madrid, then an
      // event that places them before the feed's position.
      await changeAll(app, OTHER_OWNER, 71);
      await app.makeProperty({ ownerId: OTHER_OWNER, location: paris });
      const hits = cache.hits;
      const again = await read();
      expect(cache.hits).toBeGreaterThan(hits);
      expect(again._embedded).toEqual(before._embedded);
      const second = await app.request<KeysetPage>('GET', again._links.next!.href, {
        token: app.employee,
      });
      expect(second.status).toBe(200);
      expect(second.body._embedded['svc:properties'][0]!.totalUnits).toBe(1);
      expect(again.feedCursor).not.toBe(before.feedCursor);
      // The page remembered from before starts its walk where it was read: past the bound.
      const old = await app.request('GET', before._links.next!.href, { token: app.employee });
      expect(old.status).toBe(410);
    });

    test('the sort fields kept for walks go with the events they follow, a write that appends none included', async () => {
      const app = await store.app();
      const id = await app.makeProperty({ ownerId: OWNER, totalUnits: 1 });
      // A repair straight in the database: a change of sort fields with no event.
      await app.query('UPDATE properties SET total_units = 7 WHERE id = ?', id);
      const kept = 'SELECT count(*) AS n FROM property_sort_changes';
      expect(Number((await app.query<{ n: number }>(kept))[0]!.n)).toBe(1);
      await app.makeProperty({ ownerId: OWNER });
      await app.query('DELETE FROM events');
      expect(Number((await app.query<{ n: number }>(kept))[0]!.n)).toBe(0);
    });

    test('cursors are opaque and bound to their query and caller: anything else is a 400', async () => {
      const first = (await get(`${LIST}?paging=keyset&itemsPerPage=2&sort=type`)).body;
      const cursor = new URL(first._links.next!.href, 'http://x').searchParams.get('cursor')!;
      const lastId = first._embedded['svc:properties'][1]!.id;
      expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain(lastId);
      expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain(lastId.slice(0, 8));
      // One character of the middle changed: the last one may carry only padding bits.
      const tampered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
      const FOREIGN = ['cursor', 'must be the cursor of a `_links.next` of this query'] as [
        string,
        string,
      ];
      for (const [path, token, param] of [
        [`${LIST}?paging=keyset&itemsPerPage=2&sort=-type&cursor=${cursor}`, ctx.employee, FOREIGN],
        [
          `${LIST}?paging=keyset&itemsPerPage=2&sort=type&cityIds=madrid&cursor=${cursor}`,
          ctx.employee,
          FOREIGN,
        ],
        [`${LIST}?paging=keyset&itemsPerPage=2&sort=type&cursor=${cursor}`, ctx.customer, FOREIGN],
        [`${LIST}?paging=keyset&sort=type&cursor=${tampered}`, ctx.employee, FOREIGN],
        [`${LIST}?paging=keyset&sort=type&cursor=abc`, ctx.employee, FOREIGN],
        [
          `${LIST}?sort=type&cursor=${cursor}`,
          ctx.employee,
          ['cursor', 'is taken only with paging=keyset'],
        ],
        [
          `${LIST}?paging=keyset&page=2`,
          ctx.employee,
          ['page', 'is not taken with paging=keyset: follow `_links.next`'],
        ],
        [
          `${LIST}?paging=cursor`,
          ctx.employee,
          ['paging', 'must be page or keyset (got "cursor")'],
        ],
      ] as const) {
        const res = await ctx.request('GET', path, { token });
        expect([path, res.status, res.body]).toEqual([path, 400, badRequest(param)]);
      }
      // Another page size or total=true keep the cursor valid.
      const other = await get(
        `${LIST}?paging=keyset&itemsPerPage=5&total=true&sort=type&cursor=${cursor}`,
      );
      expect(other.status).toBe(200);
    });
  });
}
