import { beforeAll, describe, expect, test } from 'bun:test';
import { problemOf } from '../../support/harness';
import { storesUnderTest } from '../stores';
import { type PropertyListFixture, seedPropertyList } from './fixture';

for (const store of storesUnderTest()) {
  store.describe('GET /listings/properties', () => {
    let { ctx } = {} as PropertyListFixture;
    beforeAll(async () => {
      ({ ctx } = await seedPropertyList(store));
    });

    describe('error: 400', () => {
      test.each([
        ['an unknown sort field', '?sort=city'],
        ['a sort with an empty item', '?sort=type,'],
        ['an unknown type', '?type=castle'],
        ['an unknown city id', '?cityIds=madrid,atlantis'],
        ['published not true/false', '?published=yes'],
        ['archived not true/false', '?archived=1'],
        ['includeDeleted not true/false', '?includeDeleted=maybe'],
        ['itemsPerPage 0', '?itemsPerPage=0'],
        ['itemsPerPage 101', '?itemsPerPage=101'],
        ['page 0', '?page=0'],
        ['a non-numeric page', '?page=two'],
        ['a non-numeric numRentableUnits', '?numRentableUnits=x'],
        ['an unknown parameter', '?colour=red'],
        ['a scalar given twice', '?type=studio&type=apartment'],
        ['an unknown feature part', '?features[0][colour]=red'],
        ['more than 100 ids', `?ids=${Array.from({ length: 101 }, (_, i) => `i${i}`).join(',')}`],
        ['an over-long value', `?ownerId=${'x'.repeat(256)}`],
        ['a control character in address', '?address=a%01b'],
        ['updatedSince not a date-time', '?updatedSince=yesterday'],
        ['updatedSince a date without a time', '?updatedSince=2026-01-31'],
        ['updatedSince without seconds', '?updatedSince=2026-01-31T09:00Z'],
        ['updatedSince without a zone', '?updatedSince=2026-01-31T09:00:00'],
        ['updatedSince on a day that does not exist', '?updatedSince=2026-02-30T00:00:00Z'],
        [
          'updatedSince with an unencoded + (read as a space)',
          '?updatedSince=2026-01-31T10:00:00+01:00',
        ],
        [
          'updatedSince given twice',
          '?updatedSince=2026-01-31T09:00:00Z&updatedSince=2026-01-31T10:00:00Z',
        ],
      ])('%s', async (_, query) => {
        const res = await ctx.request('GET', `/listings/properties${query}`, {
          token: ctx.employee,
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body).toEqual(problemOf(400));
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
      expect(res.body).toEqual(problemOf(400));
    });
  });
}
