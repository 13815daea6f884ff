import { describe, expect, test } from 'bun:test';
import type { z } from 'zod';
import { TransactionPage } from '@/customer/transactions/schemas';
import { manualClock } from '../support/harness';
import { type StoreUnderTest, storesUnderTest } from './stores';

const LIST = '/api/v1/c/transactions';

/** A page, or the 422 body. */
type Page = z.infer<typeof TransactionPage>;
type Invalid = { message: string; errors: Record<string, string[]> };

/** A fresh app on `store` with room for many calls per customer. */
async function context(store: StoreUnderTest) {
  const ctx = await store.app({
    env: { RATE_LIMIT_CUSTOMER_PER_MINUTE: '100000' },
    clock: manualClock(),
  });
  const token = await ctx.tokenFor('customer-1');
  const list = async (query = '', as = token) => {
    const res = await ctx.request<Page>('GET', `${LIST}${query}`, { token: as });
    if (res.status === 200) expect(TransactionPage.safeParse(res.body).success).toBe(true);
    return res;
  };
  const invalid = (query: string) => ctx.request<Invalid>('GET', `${LIST}${query}`, { token });
  const bookings = async (query: string) => (await list(query)).body.data.map((t) => t.booking_id);
  return { ...ctx, token, list, invalid, bookings };
}

const empty = (perPage = 15, page = 1) => ({
  pagination: {
    total: 0,
    per_page: perPage,
    current_page: page,
    last_page: 1,
    from: null,
    to: null,
  },
  data: [],
});

for (const store of storesUnderTest()) {
  store.describe('GET /api/v1/c/transactions', () => {
    describe('happy', () => {
      test('a customer sees its own, newest pay date first, id breaking ties', async () => {
        const ctx = await context(store);
        const older = await ctx.makeTransaction({ bookingId: 'A', payDate: '2026-01-01' });
        const first = await ctx.makeTransaction({
          bookingId: 'B',
          payDate: '2026-02-01',
          amountCents: 123_450,
          description: 'Deposit',
        });
        const second = await ctx.makeTransaction({
          bookingId: 'C',
          payDate: '2026-02-01',
          amountCents: -5,
        });
        await ctx.makeTransaction({ customerId: 'customer-2', bookingId: 'X' });
        const res = await ctx.list();
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          pagination: { total: 3, per_page: 15, current_page: 1, last_page: 1, from: 1, to: 3 },
          data: [
            {
              id: second,
              booking_id: 'C',
              amount: '-0.05',
              currency: 'EUR',
              pay_date: '2026-02-01',
              status: 'paid',
              description: null,
            },
            {
              id: first,
              booking_id: 'B',
              amount: '1234.50',
              currency: 'EUR',
              pay_date: '2026-02-01',
              status: 'paid',
              description: 'Deposit',
            },
            {
              id: older,
              booking_id: 'A',
              amount: '100.00',
              currency: 'EUR',
              pay_date: '2026-01-01',
              status: 'paid',
              description: null,
            },
          ],
        });
      });

      test('pay date filters are inclusive', async () => {
        const ctx = await context(store);
        for (const [bookingId, payDate] of [
          ['D1', '2026-03-01'],
          ['D2', '2026-03-02'],
          ['D3', '2026-03-03'],
          ['D4', '2026-03-04'],
        ]) {
          await ctx.makeTransaction({ bookingId, payDate });
        }
        expect(await ctx.bookings('?pay_date_from=2026-03-02')).toEqual(['D4', 'D3', 'D2']);
        expect(await ctx.bookings('?pay_date_to=2026-03-02')).toEqual(['D2', 'D1']);
        expect(await ctx.bookings('?pay_date_from=2026-03-02&pay_date_to=2026-03-03')).toEqual([
          'D3',
          'D2',
        ]);
        expect(await ctx.bookings('?pay_date_from=2026-03-03&pay_date_to=2026-03-03')).toEqual([
          'D3',
        ]);
        expect(await ctx.bookings('?pay_date_from=2026-03-05')).toEqual([]);
      });

      test('amount filters are inclusive and exact to the cent (10.5 = 10.50)', async () => {
        const ctx = await context(store);
        for (const [bookingId, amountCents] of [
          ['M1', 1049],
          ['M2', 1050],
          ['M3', 1051],
          ['M4', 2000],
          ['M5', -300],
        ] as const) {
          await ctx.makeTransaction({ bookingId, amountCents });
        }
        const sorted = async (query: string) => (await ctx.bookings(query)).sort();
        expect(await sorted('?amount_from=10.5')).toEqual(['M2', 'M3', 'M4']);
        expect(await sorted('?amount_from=10.50&amount_to=20')).toEqual(['M2', 'M3', 'M4']);
        expect(await sorted('?amount_to=10.5')).toEqual(['M1', 'M2', 'M5']);
        expect(await sorted('?amount_from=10.51&amount_to=10.51')).toEqual(['M3']);
        expect(await sorted('?amount_from=-3&amount_to=0')).toEqual(['M5']);
        expect(await sorted('?amount_from=20.01')).toEqual([]);
      });

      test('booking_id matches exactly; an unknown one answers 200 with an empty page', async () => {
        const ctx = await context(store);
        await ctx.makeTransaction({ bookingId: 'BK-100' });
        await ctx.makeTransaction({ bookingId: 'BK-1000' });
        expect(await ctx.bookings('?booking_id=BK-100')).toEqual(['BK-100']);
        const unknown = await ctx.list('?booking_id=NOPE');
        expect(unknown.status).toBe(200);
        expect(unknown.body).toEqual(empty());
      });

      test('paging: from, to and last_page on the first, last and an empty page', async () => {
        const ctx = await context(store);
        for (let day = 1; day <= 35; day++) {
          const payDate = new Date(Date.UTC(2026, 0, day)).toISOString().slice(0, 10);
          await ctx.makeTransaction({ payDate });
        }
        const first = await ctx.list();
        expect(first.body.pagination).toEqual({
          total: 35,
          per_page: 15,
          current_page: 1,
          last_page: 3,
          from: 1,
          to: 15,
        });
        expect(first.body.data[0]!.pay_date).toBe('2026-02-04');
        const last = await ctx.list('?page=3');
        expect(last.body.pagination).toEqual({
          total: 35,
          per_page: 15,
          current_page: 3,
          last_page: 3,
          from: 31,
          to: 35,
        });
        expect(last.body.data.map((t) => t.pay_date)).toEqual([
          '2026-01-05',
          '2026-01-04',
          '2026-01-03',
          '2026-01-02',
          '2026-01-01',
        ]);
        const beyond = await ctx.list('?page=4');
        expect(beyond.status).toBe(200);
        expect(beyond.body).toEqual({
          pagination: {
            total: 35,
            per_page: 15,
            current_page: 4,
            last_page: 3,
            from: null,
            to: null,
          },
          data: [],
        });
        const whole = await ctx.list('?per_page=100');
        expect(whole.body.pagination).toMatchObject({
          per_page: 100,
          last_page: 1,
          from: 1,
          to: 35,
        });
        const single = await ctx.list('?per_page=1&page=35');
        expect(single.body.pagination).toMatchObject({ last_page: 35, from: 35, to: 35 });
      });

      test('no transactions at all: 200, total 0, from/to null, last_page 1', async () => {
        const ctx = await context(store);
        const res = await ctx.list('?per_page=5&page=2');
        expect(res.status).toBe(200);
        expect(res.body).toEqual(empty(5, 2));
      });

      test('empty parameters are ignored', async () => {
        const ctx = await context(store);
        await ctx.makeTransaction();
        const res = await ctx.list('?pay_date_from=&amount_to=&per_page=&booking_id=');
        expect(res.status).toBe(200);
        expect(res.body.pagination.total).toBe(1);
      });
    });

    describe('error', () => {
      test('a bad date answers 422 with the Laravel body', async () => {
        const ctx = await context(store);
        const res = await ctx.invalid('?pay_date_from=2026-02-30');
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          message: 'The pay date from field must match the format Y-m-d.',
          errors: { pay_date_from: ['The pay date from field must match the format Y-m-d.'] },
        });
      });

      test.each([
        [
          'pay_date_to=22-11-2026',
          'pay_date_to',
          'The pay date to field must match the format Y-m-d.',
        ],
        ['amount_from=ten', 'amount_from', 'The amount from field must be a number.'],
        ['amount_to=1e3', 'amount_to', 'The amount to field must be a number.'],
        [
          'amount_from=10.555',
          'amount_from',
          'The amount from field must have 0-2 decimal places.',
        ],
        ['per_page=0', 'per_page', 'The per page field must be between 1 and 100.'],
        ['per_page=101', 'per_page', 'The per page field must be between 1 and 100.'],
        ['per_page=ten', 'per_page', 'The per page field must be an integer.'],
        ['page=0', 'page', 'The page field must be between 1 and 1000000000.'],
        ['page=1.5', 'page', 'The page field must be an integer.'],
        [
          'pay_date_from=2026-03-02&pay_date_to=2026-03-01',
          'pay_date_to',
          'The pay date to field must be a date after or equal to pay date from.',
        ],
        [
          'amount_from=5&amount_to=4.99',
          'amount_to',
          'The amount to field must be greater than or equal to amount from.',
        ],
      ])('%s → 422', async (query, field, message) => {
        const ctx = await context(store);
        const res = await ctx.invalid(`?${query}`);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message, errors: { [field]: [message] } });
      });

      test('several failures are all reported', async () => {
        const ctx = await context(store);
        const res = await ctx.invalid('?pay_date_from=x&amount_to=y&per_page=500');
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          message: 'The per page field must be between 1 and 100. (and 2 more errors)',
          errors: {
            per_page: ['The per page field must be between 1 and 100.'],
            pay_date_from: ['The pay date from field must match the format Y-m-d.'],
            amount_to: ['The amount to field must be a number.'],
          },
        });
      });
    });

    describe('auth', () => {
      test('without a token → 401', async () => {
        const ctx = await context(store);
        const res = await ctx.request('GET', LIST);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: 'Unauthenticated.' });
      });

      test('a customer naming another customer still sees only its own', async () => {
        const ctx = await context(store);
        await ctx.makeTransaction({ bookingId: 'MINE' });
        await ctx.makeTransaction({ customerId: 'customer-2', bookingId: 'THEIRS' });
        expect(await ctx.bookings('?customer_id=customer-2')).toEqual(['MINE']);
      });

      test('an employee sees every customer, or one with customer_id', async () => {
        const ctx = await context(store);
        await ctx.makeTransaction({ bookingId: 'ONE', payDate: '2026-01-01' });
        await ctx.makeTransaction({
          customerId: 'customer-2',
          bookingId: 'TWO',
          payDate: '2026-01-02',
        });
        const employee = await ctx.tokenFor('staff', 'employee');
        const all = await ctx.list('', employee);
        expect(all.body.data.map((t) => t.booking_id)).toEqual(['TWO', 'ONE']);
        const one = await ctx.list('?customer_id=customer-2', employee);
        expect(one.body.data.map((t) => t.booking_id)).toEqual(['TWO']);
      });
    });
  });
}
