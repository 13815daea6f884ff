import { describe, expect, test } from 'bun:test';
import { Plan, PlanList } from '@/customer/admin/schemas';
import { expectAnonymousRefused, expectCustomerRefused } from '../support/auth-guards';
import { manualClock } from '../support/harness';
import { type StoreUnderTest, storesUnderTest } from './stores';

const PLANS = '/api/v1/admin/plans';
const IMPORT = '/api/v1/admin/transactions';

async function context(store: StoreUnderTest) {
  const ctx = await store.app({ clock: manualClock() });
  const admin = await ctx.tokenFor('admin', 'employee');
  const as = (method: string, path: string, body?: unknown) =>
    ctx.request<Record<string, unknown>>(method, path, { token: admin, body });
  const planOf = async (sub: string) => {
    const token = await ctx.tokenFor(sub);
    const res = await ctx.request<{ rate_limits: { plan: unknown; limits: { window: string }[] } }>(
      'GET',
      '/api/v1/tokens/limits',
      { token },
    );
    return res.body.rate_limits;
  };
  return { ...ctx, admin, as, planOf };
}

const row = (overrides: Record<string, unknown> = {}) => ({
  customer_id: 'customer-1',
  booking_id: 'BK-1',
  amount: '10.50',
  currency: 'EUR',
  pay_date: '2026-05-01',
  status: 'paid',
  ...overrides,
});

const storedCount = async (ctx: Awaited<ReturnType<typeof context>>) =>
  (await ctx.storedAmounts()).length;

for (const store of storesUnderTest()) {
  store.describe('admin: plans', () => {
    describe('happy', () => {
      test('create, list, replace and delete', async () => {
        const ctx = await context(store);
        expect((await ctx.as('GET', PLANS)).body).toEqual({ data: [] });
        const created = await ctx.as('POST', PLANS, {
          name: 'Gold',
          slug: 'gold',
          limits: { hour: 100, day: 1000 },
        });
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          id: 3,
          name: 'Gold',
          slug: 'gold',
          limits: { hour: 100, day: 1000 },
        });
        expect(Plan.safeParse(created.body).success).toBe(true);
        await ctx.as('POST', PLANS, { name: 'Free', slug: 'free' });
        const list = await ctx.as('GET', PLANS);
        expect(PlanList.safeParse(list.body).success).toBe(true);
        expect(list.body).toEqual({
          data: [
            { id: 3, name: 'Gold', slug: 'gold', limits: { hour: 100, day: 1000 } },
            { id: 4, name: 'Free', slug: 'free', limits: {} },
          ],
        });
        const replaced = await ctx.as('PUT', `${PLANS}/3`, {
          name: 'Gold+',
          slug: 'gold',
          limits: { week: 5000 },
        });
        expect(replaced.status).toBe(200);
        expect(replaced.body).toEqual({
          id: 3,
          name: 'Gold+',
          slug: 'gold',
          limits: { week: 5000 },
        });
        expect((await ctx.as('DELETE', `${PLANS}/3`)).status).toBe(204);
        expect((await ctx.as('GET', PLANS)).body).toEqual({
          data: [{ id: 4, name: 'Free', slug: 'free', limits: {} }],
        });
      });

      test('assigning, changing and removing a plan takes effect at once', async () => {
        const ctx = await context(store);
        const gold = await ctx.as('POST', PLANS, {
          name: 'Gold',
          slug: 'gold',
          limits: { day: 9 },
        });
        expect(
          (await ctx.as('PUT', '/api/v1/admin/customers/c-1/plan', { planId: 3 })).status,
        ).toBe(204);
        expect(await ctx.planOf('c-1')).toMatchObject({
          plan: { id: 3, name: 'Gold', slug: 'gold' },
          limits: [{ window: 'minute' }, { window: 'day' }],
        });
        await ctx.as('PUT', `${PLANS}/${gold.body.id}`, {
          name: 'Gold',
          slug: 'gold',
          limits: { hour: 5 },
        });
        expect((await ctx.planOf('c-1')).limits.map((w) => w.window)).toEqual(['minute', 'hour']);
        await ctx.as('PUT', '/api/v1/admin/customers/c-1/plan', { planId: null });
        expect((await ctx.planOf('c-1')).plan).toEqual({
          id: 1,
          name: 'Standard',
          slug: 'standard',
        });
      });

      test('customers on a deleted plan return to Standard', async () => {
        const ctx = await context(store);
        await ctx.as('POST', PLANS, { name: 'Gold', slug: 'gold', limits: { day: 9 } });
        await ctx.as('PUT', '/api/v1/admin/customers/c-2/plan', { planId: 3 });
        await ctx.as('DELETE', `${PLANS}/3`);
        expect((await ctx.planOf('c-2')).plan).toEqual({
          id: 1,
          name: 'Standard',
          slug: 'standard',
        });
      });

      test('an employee limit of at least 2000 is accepted', async () => {
        const ctx = await context(store);
        const res = await ctx.as('PUT', '/api/v1/admin/employees/e-9/rate-limit', {
          perMinute: 2000,
        });
        expect(res.status).toBe(204);
      });
    });

    describe('error', () => {
      test('a taken or reserved slug → 422', async () => {
        const ctx = await context(store);
        await ctx.as('POST', PLANS, { name: 'Gold', slug: 'gold' });
        for (const slug of ['gold', 'standard', 'employee']) {
          const res = await ctx.as('POST', PLANS, { name: 'Again', slug });
          expect(res.status).toBe(422);
          expect(res.body).toEqual({
            message: 'The slug has already been taken.',
            errors: { slug: ['The slug has already been taken.'] },
          });
        }
      });

      test('an invalid plan body → 422 naming each field', async () => {
        const ctx = await context(store);
        const res = await ctx.as('POST', PLANS, {
          slug: 'Not A Slug',
          limits: { hour: 0, year: 5 },
        });
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors as object).sort()).toEqual([
          'limits.hour',
          'limits.year',
          'name',
          'slug',
        ]);
      });

      test('unknown or built-in plan ids → 404', async () => {
        const ctx = await context(store);
        const body = { name: 'X', slug: 'x' };
        for (const id of ['1', '2', '99', 'abc']) {
          expect((await ctx.as('PUT', `${PLANS}/${id}`, body)).status).toBe(404);
          const res = await ctx.as('DELETE', `${PLANS}/${id}`);
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ message: 'Not Found.' });
        }
      });

      test('assigning an unknown plan → 422', async () => {
        const ctx = await context(store);
        const res = await ctx.as('PUT', '/api/v1/admin/customers/c-1/plan', { planId: 42 });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          message: 'The selected plan id is invalid.',
          errors: { planId: ['The selected plan id is invalid.'] },
        });
      });

      test('an employee limit below 2000 → 422', async () => {
        const ctx = await context(store);
        const res = await ctx.as('PUT', '/api/v1/admin/employees/e-9/rate-limit', {
          perMinute: 1999,
        });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          message: 'The per minute must be at least 2000.',
          errors: { perMinute: ['The per minute must be at least 2000.'] },
        });
      });
    });

    describe('auth', () => {
      test('a customer → 403, no token → 401', async () => {
        const ctx = await context(store);
        const customer = await ctx.tokenFor('c-1');
        await expectCustomerRefused(ctx, [`GET ${PLANS}`], { token: customer, family: 'customer' });
        await expectAnonymousRefused(ctx, [`POST ${IMPORT}`], {
          body: [row()],
          family: 'customer',
        });
      });
    });
  });

  store.describe('admin: transaction import', () => {
    test('happy: rows are stored as integer cents and served back', async () => {
      const ctx = await context(store);
      const res = await ctx.as('POST', IMPORT, [
        row(),
        row({ booking_id: 'BK-2', amount: 1234.5, description: 'Rent' }),
        row({ customer_id: 'customer-2', amount: '-7' }),
      ]);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ imported: 3 });
      expect(await ctx.storedAmounts()).toEqual([1050, 123_450, -700]);
      const token = await ctx.tokenFor('customer-1');
      const list = await ctx.request<{ data: { amount: string }[] }>(
        'GET',
        '/api/v1/c/transactions',
        {
          token,
        },
      );
      expect(list.body.data.map((t) => t.amount)).toEqual(['1234.50', '10.50']);
    });

    test('error: one bad row → 422 naming it, nothing stored', async () => {
      const ctx = await context(store);
      const res = await ctx.as('POST', IMPORT, [
        row(),
        row(),
        row(),
        row({ amount: '12.345' }),
        row({ pay_date: '2026-02-30', currency: 'eur' }),
      ]);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message:
          'The amount must be a decimal number with at most 2 decimal places. (and 2 more errors)',
        errors: {
          '3.amount': ['The amount must be a decimal number with at most 2 decimal places.'],
          '4.currency': ['The currency must be a three-letter ISO 4217 code (e.g. EUR).'],
          '4.pay_date': ['The pay date must be a date in the format YYYY-MM-DD.'],
        },
      });
      expect(await storedCount(ctx)).toBe(0);
    });

    test('error: a NUL in a field → 422 naming it on either database, nothing stored', async () => {
      const ctx = await context(store);
      const res = await ctx.as('POST', IMPORT, [row(), row({ booking_id: 'BK\u00001' })]);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The field must not contain the NUL character (U+0000).',
        errors: { '1.booking_id': ['The field must not contain the NUL character (U+0000).'] },
      });
      expect(await storedCount(ctx)).toBe(0);
    });

    test('error: missing and unknown fields are named', async () => {
      const ctx = await context(store);
      const { customer_id: _, ...withoutCustomer } = row();
      const res = await ctx.as('POST', IMPORT, [{ ...withoutCustomer, extra: 1 }]);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        '0.customer_id': ["Value is required and can't be empty"],
        '0.extra': ['The field is not allowed'],
      });
    });

    test('error: a body that is not an array → 400; more than 10,000 rows → 422', async () => {
      const ctx = await context(store);
      const notArray = await ctx.as('POST', IMPORT, row());
      expect(notArray.status).toBe(400);
      const small = {
        customer_id: 'c',
        booking_id: 'b',
        amount: 1,
        currency: 'EUR',
        pay_date: '2026-01-01',
        status: 'p',
      };
      const tooMany = await ctx.as(
        'POST',
        IMPORT,
        Array.from({ length: 10_001 }, () => small),
      );
      expect(tooMany.status).toBe(422);
      expect(tooMany.body).toEqual({
        message: 'At most 10000 transactions may be imported at once.',
        errors: { transactions: ['At most 10000 transactions may be imported at once.'] },
      });
      expect(await storedCount(ctx)).toBe(0);
    });
  });
}
