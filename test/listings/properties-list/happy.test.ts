import { beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp } from '../../support/harness';
import { storesUnderTest } from '../stores';
import { OTHER_OWNER, postProperty } from '../support';
import { type List, type PropertyListFixture, seedPropertyList } from './fixture';

for (const store of storesUnderTest()) {
  store.describe('GET /listings/properties', () => {
    let {
      ctx,
      madrid,
      paris,
      london,
      madrid2,
      berlin,
      all,
      deletedSaunaUnit,
      unitOf,
      list,
      idsOf,
    } = {} as PropertyListFixture;
    beforeAll(async () => {
      ({ ctx, madrid, paris, london, madrid2, berlin, all, deletedSaunaUnit, unitOf, list, idsOf } =
        await seedPropertyList(store));
    });

    describe('happy: no filter', () => {
      test('every property in _id order, count and total, full representations', async () => {
        const body = await list('');
        expect(body.count).toBe(5);
        expect(body.total).toBe(5);
        expect(body._embedded['svc:properties'].map((p) => p.id)).toEqual(all);
        const second = body._embedded['svc:properties'][1]!;
        expect(second).toMatchObject({
          id: paris,
          type: 'studio',
          ownerId: OTHER_OWNER,
          totalUnits: 3,
          rentableUnits: 2,
          publishedUnits: 1,
          published: true,
          archived: false,
          location: {
            addressLine1: '10 Rue 50%_off',
            addressLine2: 'Bâtiment Ü',
            cityId: 'paris',
            country: 'FR',
            neighbourhoodId: null,
          },
        });
        expect(body._links).toEqual({
          self: { href: '/listings/properties?page=1' },
          first: { href: '/listings/properties?page=1' },
          last: { href: '/listings/properties?page=1' },
        });
      });
    });

    describe('happy: each filter alone', () => {
      test('id', async () => {
        expect(await idsOf(`?id=${london}`)).toEqual([london]);
        expect(await idsOf('?id=nope')).toEqual([]);
      });

      test.each([
        ['k=a&k=b', (a: string, b: string) => `ids=${a}&ids=${b}`],
        ['k[]=a', (a: string, b: string) => `ids[]=${a}&ids[]=${b}`],
        ['k[0]=a', (a: string, b: string) => `ids[0]=${a}&ids[1]=${b}`],
        ['k=a,b', (a: string, b: string) => `ids=${a},${b}`],
        ['k%5B%5D=a (encoded brackets)', (a: string, b: string) => `ids%5B%5D=${a}&ids%5B%5D=${b}`],
      ])('ids in the encoding %s', async (_, query) => {
        expect(await idsOf(`?${query(berlin, paris)}`)).toEqual([paris, berlin]);
      });

      test.each([
        ['cityIds=madrid&cityIds=london'],
        ['cityIds[]=madrid&cityIds[]=london'],
        ['cityIds[0]=madrid&cityIds[1]=london'],
        ['cityIds=madrid,london'],
      ])('cityIds as %s', async (query) => {
        expect(await idsOf(`?${query}`)).toEqual([madrid, london, madrid2]);
      });

      test('unitIds, deleted units only with includeDeleted=true', async () => {
        expect(await idsOf(`?unitIds=${unitOf(paris, 2)},${unitOf(madrid2, 0)}`)).toEqual([
          paris,
          madrid2,
        ]);
        expect(await idsOf(`?unitIds=${deletedSaunaUnit}`)).toEqual([]);
        expect(await idsOf(`?unitIds=${deletedSaunaUnit}&includeDeleted=true`)).toEqual([berlin]);
      });

      test('ownerId', async () => {
        expect(await idsOf(`?ownerId=${OTHER_OWNER}`)).toEqual([paris, berlin]);
      });

      test.each([
        ['apartment', () => [madrid, berlin]],
        ['studio', () => [paris]],
        ['roomShared', () => [london]],
        ['residence', () => [madrid2]],
      ])('type=%s', async (type, expected) => {
        expect(await idsOf(`?type=${type}`)).toEqual(expected());
      });

      test('numRentableUnits', async () => {
        expect(await idsOf('?numRentableUnits=1')).toEqual([madrid, madrid2]);
        expect(await idsOf('?numRentableUnits=3')).toEqual([berlin]);
        expect(await idsOf('?numRentableUnits=0')).toEqual([]);
      });

      test('published and archived, both ways', async () => {
        expect(await idsOf('?published=true')).toEqual([paris, madrid2]);
        expect(await idsOf('?published=false')).toEqual([madrid, london, berlin]);
        expect(await idsOf('?archived=true')).toEqual([london]);
        expect(await idsOf('?archived=false')).toEqual([madrid, paris, madrid2, berlin]);
      });

      test('features: one criterion, omitted parts match anything', async () => {
        expect(await idsOf('?features[0][name]=balcony')).toEqual([madrid, paris, madrid2]);
        expect(await idsOf('?features[0][name]=balcony&features[0][value]=yes')).toEqual([
          madrid,
          madrid2,
        ]);
        expect(await idsOf('?features[0][category]=building')).toEqual([madrid]);
        expect(await idsOf('?features[0][applicability]=unit&features[0][value]=no')).toEqual([
          madrid,
          paris,
        ]);
      });

      test('features: every criterion on one unit', async () => {
        const both = '?features[0][name]=balcony&features[0][value]=yes&features[1][name]=pool';
        expect(await idsOf(both)).toEqual([madrid2]);
        // paris has balcony and lift, but on two different units.
        expect(await idsOf('?features[0][name]=balcony&features[1][name]=lift')).toEqual([madrid]);
      });

      test('features alone: either _id order, paged, each property counted once', async () => {
        const balcony = '?features[0][name]=balcony';
        expect(await idsOf(`${balcony}&sort=-_id`)).toEqual([madrid2, paris, madrid]);
        const second = await list(`${balcony}&itemsPerPage=2&page=2`);
        expect(second._embedded['svc:properties'].map((p) => p.id)).toEqual([madrid2]);
        expect([second.count, second.total]).toEqual([1, 3]);
        // paris matches on two units (balcony and lift, both amenities).
        const amenities = await list('?features[0][category]=amenities');
        expect([amenities.count, amenities.total]).toEqual([3, 3]);
      });

      test('features of deleted units only with includeDeleted=true', async () => {
        expect(await idsOf('?features[0][name]=sauna')).toEqual([]);
        expect(await idsOf('?features[0][name]=sauna&includeDeleted=true')).toEqual([berlin]);
      });

      test('address: case-insensitive substring of any of the four fields', async () => {
        expect(await idsOf('?address=MAYOR')).toEqual([madrid]);
        expect(await idsOf('?address=madrid')).toEqual([madrid, madrid2]);
        expect(await idsOf('?address=2800')).toEqual([madrid2]);
        expect(await idsOf('?address=bâtiment ü')).toEqual([paris]);
        expect(await idsOf(`?address=${encodeURIComponent('BÂTIMENT Ü')}`)).toEqual([paris]);
        expect(await idsOf('?address=nw1 6x')).toEqual([london]);
      });

      test('address: % and _ are literal, short needles work, fields never join', async () => {
        expect(await idsOf('?address=50%25_')).toEqual([paris]);
        expect(await idsOf('?address=%25')).toEqual([paris]);
        expect(await idsOf('?address=_')).toEqual([paris]);
        expect(await idsOf('?address=1%25')).toEqual([]);
        expect(await idsOf('?address=ü')).toEqual([paris]);
        // "Street" ends addressLine1 and "London" is the city: no match across them.
        expect(await idsOf('?address=streetlondon')).toEqual([]);
        expect(await idsOf('?address=street london')).toEqual([]);
      });

      test('an empty value counts as absent', async () => {
        expect(await idsOf('?type=&cityIds=&address=')).toEqual(all);
      });
    });

    describe('happy: filters combined', () => {
      test('cityIds and type', async () => {
        expect(await idsOf('?cityIds=madrid,paris&type=residence')).toEqual([madrid2]);
      });

      test('ownerId and published', async () => {
        expect(await idsOf(`?ownerId=${OTHER_OWNER}&published=true`)).toEqual([paris]);
      });

      test('address and cityIds', async () => {
        expect(await idsOf('?address=1&cityIds=berlin,paris')).toEqual([paris, berlin]);
      });

      test('features, archived and numRentableUnits', async () => {
        expect(await idsOf('?features[0][name]=balcony&archived=false&numRentableUnits=1')).toEqual(
          [madrid, madrid2],
        );
      });

      test('ids, type and address', async () => {
        expect(
          await idsOf(`?ids=${madrid},${berlin},${paris}&type=apartment&address=linden`),
        ).toEqual([berlin]);
      });

      test('every filter at once', async () => {
        const query = [
          `id=${madrid2}`,
          `ids=${madrid2},${madrid}`,
          `unitIds=${unitOf(madrid2, 1)}`,
          'cityIds=madrid',
          'ownerId=owner-3',
          'type=residence',
          'numRentableUnits=1',
          'features[0][name]=pool',
          'published=true',
          'archived=false',
          'includeDeleted=false',
          'address=gran',
        ].join('&');
        expect(await idsOf(`?${query}`)).toEqual([madrid2]);
      });
    });

    describe('happy: sort', () => {
      const rows = async () =>
        (await list('?itemsPerPage=100'))._embedded['svc:properties'].map((p) => ({
          id: p.id,
          type: p.type,
          owner_id: p.ownerId,
          total_units: p.totalUnits,
          rentable_units: p.rentableUnits,
        })) as Record<string, string | number>[];
      const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

      test.each([
        ['_id', 'id'],
        ['type', 'type'],
        ['ownerId', 'owner_id'],
        ['totalUnits', 'total_units'],
        ['rentableUnits', 'rentable_units'],
      ])('by %s, ascending and descending; _id breaks ties', async (field, column) => {
        for (const direction of [1, -1]) {
          const expected = (await rows())
            .sort((a, b) => direction * (compare(a[column]!, b[column]!) || compare(a.id!, b.id!)))
            .map((row) => row.id);
          const sort = direction === 1 ? field : `-${field}`;
          expect(await idsOf(`?sort=${sort}`)).toEqual(expected as string[]);
        }
      });

      test('by several fields', async () => {
        const expected = (await rows())
          .sort(
            (a, b) =>
              compare(a.type!, b.type!) ||
              -compare(a.total_units!, b.total_units!) ||
              -compare(a.id!, b.id!),
          )
          .map((row) => row.id);
        expect(await idsOf('?sort=type,-totalUnits')).toEqual(expected as string[]);
      });
    });

    describe('paging', () => {
      const href = (page: number) => ({
        href: `/listings/properties?cityIds[]=madrid&cityIds[]=paris&cityIds[]=london&cityIds[]=berlin&itemsPerPage=2&page=${page}`,
      });
      const query =
        '?cityIds[]=madrid&cityIds[]=paris&cityIds[]=london&cityIds[]=berlin&itemsPerPage=2';

      test('first page', async () => {
        const body = await list(query);
        expect(body.count).toBe(2);
        expect(body.total).toBe(5);
        expect(body._links).toEqual({
          self: href(1),
          first: href(1),
          last: href(3),
          next: href(2),
        });
        expect(body._embedded['svc:properties'].map((p) => p.id)).toEqual([madrid, paris]);
      });

      test('middle page; links keep every filter wherever page stood', async () => {
        const body = await list(
          '?cityIds[]=madrid&page=2&cityIds[]=paris&cityIds[]=london&cityIds[]=berlin&itemsPerPage=2',
        );
        expect(body._links).toEqual({
          self: href(2),
          first: href(1),
          last: href(3),
          next: href(3),
          previous: href(1),
        });
        expect(body._embedded['svc:properties'].map((p) => p.id)).toEqual([london, madrid2]);
      });

      test('last page', async () => {
        const body = await list(`${query}&page=3`);
        expect(body.count).toBe(1);
        expect(body._links).toEqual({
          self: href(3),
          first: href(1),
          last: href(3),
          previous: href(2),
        });
        expect(body._embedded['svc:properties'].map((p) => p.id)).toEqual([berlin]);
      });

      test('past the last page: 200, empty, previous points at the last page', async () => {
        const body = await list(`${query}&page=9`);
        expect(body).toEqual({
          count: 0,
          total: 5,
          feedCursor: expect.any(String),
          _links: { self: href(9), first: href(1), last: href(3), previous: href(3) },
          _embedded: { 'svc:properties': [] },
        });
      });

      test('no match: last is page 1', async () => {
        const body = await list('?type=studio&cityIds=madrid');
        expect(body.total).toBe(0);
        expect(body._links.last).toEqual({
          href: '/listings/properties?type=studio&cityIds=madrid&page=1',
        });
      });

      test('features and address are kept, readable, in the links', async () => {
        const body = await list('?features[0][name]=balcony&address=%20&itemsPerPage=1');
        expect(body._links.next).toEqual({
          href: '/listings/properties?features[0][name]=balcony&address=%20&itemsPerPage=1&page=2',
        });
      });

      test('itemsPerPage defaults to 30 and goes up to 100', async () => {
        expect((await list('?itemsPerPage=100')).count).toBe(5);
        const many: string[] = [];
        for (let i = 0; i < 31; i++) many.push(await ctx.makeProperty({ ownerId: 'bulk' }));
        const body = await list('?ownerId=bulk');
        expect(body.count).toBe(30);
        expect(body.total).toBe(31);
        expect(body._links.last).toEqual({ href: '/listings/properties?ownerId=bulk&page=2' });
        expect((await list('?ownerId=bulk&page=2'))._embedded['svc:properties'][0]!.id).toBe(
          many[30]!,
        );
      });
    });

    describe('happy: updatedSince', () => {
      const at = (ms: number) => new Date(ms).toISOString();
      const since = (ms: number) => `updatedSince=${at(ms)}`;
      type Keyset = List & { _links: { next?: { href: string } } };
      const keysetIds = async (query: string) => {
        const ids: string[] = [];
        let path: string | undefined = `/listings/properties${query}`;
        while (path) {
          const res: { status: number; body: Keyset } = await ctx.request<Keyset>('GET', path, {
            token: ctx.employee,
          });
          expect(res.status).toBe(200);
          ids.push(...res.body._embedded['svc:properties'].map((property) => property.id));
          path = res.body._links.next?.href;
        }
        return ids;
      };

      test('properties changed at or after the instant, alone and with other filters', async () => {
        // Ten minutes on (tokens last an hour): the fixture's properties, written in
        // real time within seconds of the clock's start, all changed before `start`.
        ctx.clock.advance(600_000);
        const start = ctx.clock();
        const first = await postProperty(ctx, { ownerId: 'since' });
        ctx.clock.advance(1000);
        const second = await postProperty(ctx, { ownerId: 'since', type: 'studio' });
        const both = [first, second].sort();
        expect(await idsOf(`?${since(start)}`)).toEqual(both);
        expect((await list(`?${since(start)}`)).total).toBe(2);
        expect(await idsOf(`?${since(start + 1)}`)).toEqual([second]);
        expect(await idsOf(`?${since(start + 1000)}`)).toEqual([second]);
        expect(await idsOf(`?${since(start + 1001)}`)).toEqual([]);
        // The same instant written with an offset ('+' encoded, else it reads as a space).
        const zoned = new Date(start + 1000 + 3_600_000).toISOString().replace('Z', '+01:00');
        expect(await idsOf(`?updatedSince=${encodeURIComponent(zoned)}`)).toEqual([second]);
        expect(await idsOf(`?${since(0)}&ownerId=since&sort=-_id`)).toEqual([...both].reverse());
        expect(await idsOf(`?${since(start)}&type=studio`)).toEqual([second]);
        expect(await idsOf(`?${since(start)}&cityIds=madrid&published=false`)).toEqual(both);
        expect(await idsOf(`?${since(start)}&ownerId=${OTHER_OWNER}`)).toEqual([]);
      });

      test('with keyset paging, one property a page, and with page numbers', async () => {
        const start = ctx.clock() - 1000;
        const expected = await idsOf(`?${since(start)}`);
        expect(expected.length).toBe(2);
        expect(await keysetIds(`?paging=keyset&itemsPerPage=1&${since(start)}`)).toEqual(expected);
        const sorted = await keysetIds(`?paging=keyset&itemsPerPage=1&sort=-_id&${since(start)}`);
        expect(sorted).toEqual([...expected].reverse());
        const page2 = await list(`?itemsPerPage=1&page=2&${since(start)}`);
        expect([page2.count, page2.total]).toEqual([1, 2]);
        expect(page2._embedded['svc:properties'][0]!.id).toBe(expected[1]!);
      });
    });
  });
}

test('/docs/json documents the parameters of GET /listings/properties, in order', async () => {
  const { request } = createTestApp();
  const res = await request<{
    paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
  }>('GET', '/docs/json');
  const list = res.body.paths['/listings/properties']!.get!;
  expect(list.parameters!.map((p) => p.name)).toEqual([
    'id',
    'ids',
    'unitIds',
    'cityIds',
    'ownerId',
    'type',
    'numRentableUnits',
    'features',
    'published',
    'archived',
    'includeDeleted',
    'address',
    'updatedSince',
    'sort',
    'page',
    'itemsPerPage',
    'paging',
    'cursor',
    'total',
  ]);
});
