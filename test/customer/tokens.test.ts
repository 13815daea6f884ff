import { describe, expect, test } from 'bun:test';
import { TokenLimits } from '@/api/customer/tokens/schemas';
import { createTestApp, manualClock } from '../support/harness';

const LIMITS = '/api/v1/tokens/limits';

const minute = (limit: number, used = 0) => ({
  window: 'minute',
  limit,
  used,
  remaining: limit - used,
  resets_in_seconds: 60,
  resets_at: '2026-11-22T12:01:00+00:00',
});

describe('GET /api/v1/tokens/limits', () => {
  describe('happy', () => {
    test('a customer without a plan: Standard with the base minute window', async () => {
      const ctx = createTestApp({ clock: manualClock() });
      const res = await ctx.request('GET', LIMITS, { token: await ctx.tokenFor('c-standard') });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Rate limits retrieved successfully.',
        rate_limits: {
          audience: 'customer',
          plan: { id: 1, name: 'Standard', slug: 'standard' },
          limits: [minute(120)],
        },
      });
      expect(TokenLimits.safeParse(res.body).success).toBe(true);
    });

    test('an employee: the Employee plan, its own limit, never below 2000', async () => {
      const ctx = createTestApp({
        env: { RATE_LIMIT_EMPLOYEE_PER_MINUTE: '100' },
        clock: manualClock(),
      });
      const token = await ctx.tokenFor('e-1', 'employee');
      const res = await ctx.request('GET', LIMITS, { token });
      expect(res.body).toEqual({
        message: 'Rate limits retrieved successfully.',
        rate_limits: {
          audience: 'employee',
          plan: { id: 2, name: 'Employee', slug: 'employee' },
          limits: [minute(2000)],
        },
      });
      const set = await ctx.request('PUT', '/api/v1/admin/employees/e-1/rate-limit', {
        token,
        body: { perMinute: 7000 },
      });
      expect(set.status).toBe(204);
      const after = await ctx.request<{ rate_limits: { limits: unknown[] } }>('GET', LIMITS, {
        token,
      });
      expect(after.body.rate_limits.limits).toEqual([minute(7000, 1)]);
    });

    test('a customer on a plan: one record per active window, usage counted', async () => {
      const ctx = createTestApp({ clock: manualClock(Date.UTC(2026, 10, 22, 12, 0, 30)) });
      const admin = await ctx.tokenFor('admin', 'employee');
      const plan = await ctx.request<{ id: number }>('POST', '/api/v1/admin/plans', {
        token: admin,
        body: { name: 'Pro', slug: 'pro', limits: { minute: 500, hour: 1000, month: 50_000 } },
      });
      await ctx.request('PUT', '/api/v1/admin/customers/c-pro/plan', {
        token: admin,
        body: { planId: plan.body.id },
      });
      const token = await ctx.tokenFor('c-pro');
      await ctx.request('GET', '/api/v1/c/transactions', { token });
      const res = await ctx.request('GET', LIMITS, { token });
      expect(res.body).toEqual({
        message: 'Rate limits retrieved successfully.',
        rate_limits: {
          audience: 'customer',
          plan: { id: plan.body.id, name: 'Pro', slug: 'pro' },
          limits: [
            // The plan minute only lowers the base window, so 120 stays.
            {
              window: 'minute',
              limit: 120,
              used: 1,
              remaining: 119,
              resets_in_seconds: 60,
              resets_at: '2026-11-22T12:01:30+00:00',
            },
            {
              window: 'hour',
              limit: 1000,
              used: 1,
              remaining: 999,
              resets_in_seconds: 3570,
              resets_at: '2026-11-22T13:00:00+00:00',
            },
            {
              window: 'month',
              limit: 50_000,
              used: 1,
              remaining: 49_999,
              resets_in_seconds: 8 * 86_400 + 11 * 3600 + 59 * 60 + 30,
              resets_at: '2026-12-01T00:00:00+00:00',
            },
          ],
        },
      });
    });

    test('does not consume quota, even when the minute is used up', async () => {
      const ctx = createTestApp({
        env: { RATE_LIMIT_CUSTOMER_PER_MINUTE: '2' },
        clock: manualClock(),
      });
      const token = await ctx.tokenFor('c-free');
      for (let i = 0; i < 5; i++) {
        expect((await ctx.request('GET', LIMITS, { token })).status).toBe(200);
      }
      await ctx.request('GET', '/api/v1/c/transactions', { token });
      await ctx.request('GET', '/api/v1/c/transactions', { token });
      const res = await ctx.request<{ rate_limits: { limits: unknown[] } }>('GET', LIMITS, {
        token,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBe('limit=2, remaining=0, reset=60');
      expect(res.body.rate_limits.limits).toEqual([minute(2, 2)]);
    });
  });

  describe('auth', () => {
    test('without a token → 401, counted against the IP', async () => {
      const ctx = createTestApp({ clock: manualClock() });
      const res = await ctx.request('GET', LIMITS);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expect(res.headers.get('ratelimit')).toBe('limit=60, remaining=59, reset=60');
    });

    test('with an invalid or expired token → 401', async () => {
      const ctx = createTestApp({ clock: manualClock() });
      const expired = await ctx.tokenFor('c-old', 'customer', 1);
      ctx.clock.advance(3_600_000);
      for (const token of ['a.b.c', expired]) {
        const res = await ctx.request('GET', LIMITS, { token });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: 'Unauthenticated.' });
      }
    });
  });
});
