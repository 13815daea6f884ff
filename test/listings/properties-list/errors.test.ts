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
      ])('%s', async (_, query) => {
        const res = await ctx.request('GET', `/listings/properties${query}`, {
          token: ctx.employee,
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body).toEqual(problemOf(400));
      });
    });
  });
}
