import { beforeAll, describe, expect, test } from 'bun:test';
import { CITY_IDS } from '@/listings/cities';
import { problemOf } from '../../support/harness';
import { storesUnderTest } from '../stores';
import { type PropertyListFixture, seedPropertyList } from './fixture';

for (const store of storesUnderTest()) {
  store.describe('GET /listings/properties', () => {
    let { ctx } = {} as PropertyListFixture;
    beforeAll(async () => {
      ({ ctx } = await seedPropertyList(store));
    });

    describe('error: 400 names each refused parameter', () => {
      const INTEGER_1_100 = 'must be an integer from 1 to 100';
      const FLAG = 'must be true or false';
      const SORT =
        'must be _id, type, ownerId, totalUnits, rentableUnits, comma-separated, each optionally after -';
      const DATE_TIME =
        'must be an ISO-8601 date-time with seconds and a zone, e.g. 2026-01-31T09:00:00Z';
      test.each([
        ['an unknown sort field', '?sort=city', 'sort', `${SORT} (got "city")`],
        ['a sort with an empty item', '?sort=type,', 'sort', `${SORT} (got "type,")`],
        ['a sort field that is no field', '?sort=bogus', 'sort', `${SORT} (got "bogus")`],
        [
          'an unknown type',
          '?type=castle',
          'type',
          'must be one of apartment, studio, roomShared, residence (got "castle")',
        ],
        ['published not true/false', '?published=yes', 'published', `${FLAG} (got "yes")`],
        ['archived not true/false', '?archived=1', 'archived', `${FLAG} (got "1")`],
        [
          'includeDeleted not true/false',
          '?includeDeleted=maybe',
          'includeDeleted',
          `${FLAG} (got "maybe")`,
        ],
        ['itemsPerPage 0', '?itemsPerPage=0', 'itemsPerPage', `${INTEGER_1_100} (got "0")`],
        ['itemsPerPage 101', '?itemsPerPage=101', 'itemsPerPage', `${INTEGER_1_100} (got "101")`],
        [
          'itemsPerPage 5000',
          '?itemsPerPage=5000',
          'itemsPerPage',
          `${INTEGER_1_100} (got "5000")`,
        ],
        ['itemsPerPage abc', '?itemsPerPage=abc', 'itemsPerPage', `${INTEGER_1_100} (got "abc")`],
        ['page 0', '?page=0', 'page', 'must be an integer from 1 to 999999999 (got "0")'],
        [
          'a non-numeric page',
          '?page=two',
          'page',
          'must be an integer from 1 to 999999999 (got "two")',
        ],
        [
          'a non-numeric numRentableUnits',
          '?numRentableUnits=x',
          'numRentableUnits',
          'must be an integer from 0 to 9999 (got "x")',
        ],
        ['an unknown parameter', '?colour=red', 'colour', 'is not a parameter of this operation'],
        ['a scalar given twice', '?type=studio&type=apartment', 'type', 'is given more than once'],
        [
          'an unknown feature part',
          '?features[0][colour]=red',
          'features[0][colour]',
          'is not a parameter of this operation',
        ],
        [
          'more than 100 ids',
          `?ids=${Array.from({ length: 101 }, (_, i) => `i${i}`).join(',')}`,
          'ids',
          'must have at most 100 values',
        ],
        [
          'an over-long value',
          `?ownerId=${'x'.repeat(256)}`,
          'ownerId',
          `must have at most 255 characters (got "${'x'.repeat(64)}…")`,
        ],
        [
          'a control character in address',
          '?address=a%01b',
          'address',
          'must not contain control characters (got "a\\u0001b")',
        ],
        [
          'updatedSince not a date-time',
          '?updatedSince=yesterday',
          'updatedSince',
          `${DATE_TIME} (got "yesterday")`,
        ],
        [
          'updatedSince a date without a time',
          '?updatedSince=2026-01-31',
          'updatedSince',
          `${DATE_TIME} (got "2026-01-31")`,
        ],
        [
          'updatedSince without seconds',
          '?updatedSince=2026-01-31T09:00Z',
          'updatedSince',
          `${DATE_TIME} (got "2026-01-31T09:00Z")`,
        ],
        [
          'updatedSince without a zone',
          '?updatedSince=2026-01-31T09:00:00',
          'updatedSince',
          `${DATE_TIME} (got "2026-01-31T09:00:00")`,
        ],
        [
          'updatedSince on a day that does not exist',
          '?updatedSince=2026-02-30T00:00:00Z',
          'updatedSince',
          `${DATE_TIME} (got "2026-02-30T00:00:00Z")`,
        ],
        [
          'updatedSince with an unencoded + (read as a space)',
          '?updatedSince=2026-01-31T10:00:00+01:00',
          'updatedSince',
          `${DATE_TIME} (got "2026-01-31T10:00:00 01:00")`,
        ],
        [
          'updatedSince given twice',
          '?updatedSince=2026-01-31T09:00:00Z&updatedSince=2026-01-31T10:00:00Z',
          'updatedSince',
          'is given more than once',
        ],
        [
          'a cursor without paging=keyset',
          '?cursor=abc',
          'cursor',
          'is taken only with paging=keyset',
        ],
        [
          'a page with paging=keyset',
          '?paging=keyset&page=2',
          'page',
          'is not taken with paging=keyset: follow `_links.next`',
        ],
        [
          'a cursor this service did not seal',
          '?paging=keyset&cursor=abc',
          'cursor',
          'must be the cursor of a `_links.next` of this query',
        ],
      ])('%s', async (_, query, name, reason) => {
        const res = await ctx.request('GET', `/listings/properties${query}`, {
          token: ctx.employee,
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body).toEqual({
          type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
          title: 'Bad Request',
          status: 400,
          detail: 'The request could not be understood by the server due to malformed syntax',
          invalidParams: [{ name, reason }],
        });
      });

      test('an unknown city id names the list and every allowed city', async () => {
        const res = await ctx.request('GET', '/listings/properties?cityIds=madrid,atlantis', {
          token: ctx.employee,
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(
          problemOf(400, undefined, undefined, [
            { name: 'cityIds', reason: `must be one of ${CITY_IDS.join(', ')} (got "atlantis")` },
          ]),
        );
      });

      test('every bad parameter of one query is named, in the order of the schema', async () => {
        const res = await ctx.request(
          'GET',
          '/listings/properties?itemsPerPage=abc&sort=bogus&type=castle',
          { token: ctx.employee },
        );
        expect(res.status).toBe(400);
        expect((res.body as { invalidParams: unknown }).invalidParams).toEqual([
          {
            name: 'type',
            reason: 'must be one of apartment, studio, roomShared, residence (got "castle")',
          },
          { name: 'sort', reason: `${SORT} (got "bogus")` },
          { name: 'itemsPerPage', reason: `${INTEGER_1_100} (got "abc")` },
        ]);
      });
    });

    test('a keyset cursor of one updatedSince does not open under another', async () => {
      const query = '/listings/properties?paging=keyset&itemsPerPage=1';
      const first = await ctx.request<{ _links: { next?: { href: string } } }>(
        'GET',
        `${query}&updatedSince=2000-01-01T00:00:00Z`,
        { token: ctx.employee },
      );
      const next = first.body._links.next!.href;
      const moved = next.replace('2000-01-01', '2000-01-02');
      expect(moved).not.toBe(next);
      const res = await ctx.request('GET', moved, { token: ctx.employee });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        problemOf(400, undefined, undefined, [
          { name: 'cursor', reason: 'must be the cursor of a `_links.next` of this query' },
        ]),
      );
    });
  });
}
