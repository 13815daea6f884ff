import { beforeAll, expect, test } from 'bun:test';
import { manualClock } from '../support/harness';
import { type CustomerTestApp, storesUnderTest } from './stores';

const LIST = '/api/v1/c/transactions';
const MALFORMED = {
  message: 'The request could not be understood by the server due to malformed syntax.',
};

for (const store of storesUnderTest()) {
  store.describe('GET /api/v1/c/transactions: reading the query string', () => {
    let ctx: CustomerTestApp;
    let token: string;
    beforeAll(async () => {
      ctx = await store.app({ env: { RATE_LIMITS: 'off' }, clock: manualClock() });
      for (const bookingId of ['B 3', 'a&b', '€', '+', '[a', 'B-3'])
        await ctx.makeTransaction({ bookingId });
      token = await ctx.tokenFor('customer-1');
    });
    const get = (query: string) =>
      ctx.request<{ data: { booking_id: string }[] }>('GET', `${LIST}${query}`, { token });
    const bookings = async (query: string) => {
      const res = await get(query);
      expect(res.status).toBe(200);
      return res.body.data.map((t) => t.booking_id);
    };

    test('escapes and `+` are decoded; a bad escape is taken as written', async () => {
      expect(await bookings('?booking_id=B+3')).toEqual(['B 3']);
      expect(await bookings('?booking_id=a%26b')).toEqual(['a&b']);
      expect(await bookings('?booking_id=%E2%82%AC')).toEqual(['€']);
      expect(await bookings('?booking_id=%2B')).toEqual(['+']);
      expect(await bookings('?booking%5Fid=B-3')).toEqual(['B-3']);
      expect(await bookings('?booking_id=[a')).toEqual(['[a']);
      expect(await bookings('?booking_id=%zz')).toEqual([]);
      // A NUL matches nothing (PostgreSQL text cannot even hold one).
      expect(await bookings('?booking_id=%00')).toEqual([]);
    });

    test('unknown and bracketed keys are ignored', async () => {
      const all = await bookings('');
      expect(all).toHaveLength(6);
      for (const query of ['?unknown=1&unknown=2', '?page[]=2', '?&&=1&', '?__proto__=1']) {
        expect(await bookings(query)).toEqual(all);
      }
    });

    test('a known key twice, or given a list or JSON, is 400', async () => {
      const queries = [
        '?page=1&page=2',
        '?booking_id=B-3&booking_id=',
        '?amount_from=1,5',
        '?booking_id=a,b',
        '?booking_id=[1]',
        '?booking_id={"a":1}',
      ];
      for (const query of queries) {
        const res = await ctx.request('GET', `${LIST}${query}`, { token });
        expect({ query, status: res.status, body: res.body }).toEqual({
          query,
          status: 400,
          body: MALFORMED,
        });
      }
    });
  });
}
