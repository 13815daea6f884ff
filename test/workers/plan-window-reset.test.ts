import { expect, test } from 'bun:test';
import { createTestApp, manualClock } from '../support/harness';

interface Limits {
  rate_limits: { limits: { window: string; used: number }[] };
}

test('plan-window-reset clears ended windows and leaves live ones untouched', async () => {
  const ctx = createTestApp({ clock: manualClock(Date.UTC(2026, 10, 24, 23, 30)) });
  const admin = await ctx.tokenFor('admin', 'employee');
  const plan = await ctx.request<{ id: number }>('POST', '/api/v1/admin/plans', {
    token: admin,
    body: { name: 'Windows', slug: 'windows', limits: { hour: 50, day: 50, week: 50 } },
  });
  await ctx.request('PUT', '/api/v1/admin/customers/c-1/plan', {
    token: admin,
    body: { planId: plan.body.id },
  });
  const token = await ctx.tokenFor('c-1');
  for (let i = 0; i < 2; i++) await ctx.request('GET', '/api/v1/c/transactions', { token });

  // Wednesday 00:00:05: the hour and day windows ended, the week (from Monday) did not.
  ctx.clock.set(Date.UTC(2026, 10, 25, 0, 0, 5));
  const run = await ctx.deps.jobs!.runNow('plan-window-reset');
  expect(run).toMatchObject({ outcome: 'succeeded', details: { cleared: 2 } });

  const limits = await ctx.request<Limits>('GET', '/api/v1/tokens/limits', { token });
  const used = Object.fromEntries(limits.body.rate_limits.limits.map((w) => [w.window, w.used]));
  expect(used).toMatchObject({ hour: 0, day: 0, week: 2 });
});
