import { describe, expect, test } from 'bun:test';
import { TokenLimits } from '@/api/customer/tokens/schemas';
import { Imported, Plan, PlanList } from '@/customer/admin/schemas';
import { TransactionPage } from '@/customer/transactions/schemas';
import { ApiError, LaravelError } from '../../client/src';
import { collect, serviceUnderTest } from './support';

const svc = await serviceUnderTest();
const admin = svc.employee.customer.admin;

const row = (customer_id: string, n: number) => ({
  customer_id,
  booking_id: `B-${customer_id}-${n}`,
  amount: `${100 + n}.50`,
  currency: 'EUR',
  pay_date: `2026-11-${String(10 + n).padStart(2, '0')}`,
  status: 'paid',
});

describe('happy', () => {
  test('plans: create, list, update, assign, delete; employee limit', async () => {
    const plan = Plan.parse(
      await admin.plans.create({ name: 'Gold', slug: 'gold', limits: { hour: 1000 } }),
    );
    expect(PlanList.parse(await admin.plans.list()).data).toContainEqual(plan);
    const updated = await admin.plans.update(plan.id, {
      name: 'Gold',
      slug: 'gold',
      limits: { hour: 2000, day: 10_000 },
    });
    expect(updated.limits).toEqual({ hour: 2000, day: 10_000 });

    await admin.assignPlan('cust-gold', { planId: plan.id });
    const gold = await svc.customer('cust-gold');
    const limits = TokenLimits.parse(await gold.customer.tokenLimits());
    expect(limits.rate_limits.plan).toEqual({ id: plan.id, name: 'Gold', slug: 'gold' });
    expect(limits.rate_limits.limits.map((record) => record.window)).toEqual([
      'minute',
      'hour',
      'day',
    ]);

    await admin.assignPlan('cust-gold', { planId: null });
    await admin.plans.delete(plan.id);
    await admin.setEmployeeRateLimit('employee-2', { perMinute: 2500 });
  });

  test('iterating a 3-page transaction list yields every transaction exactly once', async () => {
    const rows = Array.from({ length: 7 }, (_, n) => row('cust-pages', n));
    expect(Imported.parse(await admin.importTransactions(rows, { idempotent: true }))).toEqual({
      imported: 7,
    });
    const customer = await svc.customer('cust-pages');
    const pages = await collect(customer.customer.transactions.pages({ per_page: 3 }));
    expect(pages.map((page) => TransactionPage.parse(page).data.length)).toEqual([3, 3, 1]);
    const items = await collect(customer.customer.transactions.all({ per_page: 3 }));
    expect(items.map((t) => t.booking_id).sort()).toEqual(rows.map((r) => r.booking_id).sort());
    expect(new Set(items.map((t) => t.id)).size).toBe(7);

    const filtered = await customer.customer.transactions.list({ amount_from: '105', per_page: 3 });
    expect(filtered.data.map((t) => t.amount)).toEqual(['106.50', '105.50']);
  });

  test('no match is an empty list, and so is the documented 404 with an empty data array', async () => {
    const customer = await svc.customer('cust-empty');
    expect(await collect(customer.customer.transactions.all())).toEqual([]);

    // Some servers answer "no results" with 404 and the same envelope: an empty page.
    const { client } = svc.recording({
      token: await svc.tokenFor('cust-empty'),
      fetch: async (request) => {
        const answer = await fetch(request);
        return new Response(await answer.text(), { status: 404, headers: answer.headers });
      },
    });
    expect(await collect(client.customer.transactions.all({ booking_id: 'none' }))).toEqual([]);
    const page = await client.customer.transactions.list();
    expect(page.pagination).toMatchObject({ total: 0, from: null, to: null, last_page: 1 });
  });
});

describe('error', () => {
  test('422 is an ApiError (LaravelError) with the Laravel errors', async () => {
    const error = await admin
      .importTransactions([row('c', 1), { ...row('c', 2), amount: 'lots' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(LaravelError);
    const failed = error as ApiError;
    expect(failed.status).toBe(422);
    expect(Object.keys(failed.errors ?? {})).toEqual(['1.amount']);

    const customer = await svc.customer('cust-bad');
    await expect(customer.customer.transactions.list({ per_page: 101 })).rejects.toMatchObject({
      status: 422,
      errors: { per_page: ['The per page field must be between 1 and 100.'] },
    });
  });
});

describe('auth', () => {
  test('no token: 401 {message: "Unauthenticated."}; a customer cannot administer', async () => {
    const error = await svc.anonymous.customer.tokenLimits().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).body).toEqual({ message: 'Unauthenticated.' });
    const customer = await svc.customer('cust-x');
    await expect(customer.customer.admin.plans.list()).rejects.toMatchObject({ status: 403 });
  });
});
