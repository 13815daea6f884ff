import { describe, expect, test } from 'bun:test';
import { sqliteUnderTest } from '../accounts/stores';
import { ORIGIN } from '../accounts/support';
import { tooMany } from './support';

const TRANSACTIONS = '/api/v1/c/transactions';
/** The harness clock starts at 2026-11-22T12:00:00Z. */
const NEXT_MINUTE = '2026-11-22T12:01:00+00:00';

describe('the limiter counts the caller the route serves: the session cookie too', () => {
  test('requests signed in by the cookie count against that customer, not the IP', async () => {
    const setup = await sqliteUnderTest.app({
      env: {
        RATE_LIMIT_CUSTOMER_PER_MINUTE: '2',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1',
      },
    });
    const ctx = setup;
    const { cookie } = await setup.newUser();
    const viaCookie = () => ctx.request('GET', TRANSACTIONS, { headers: { cookie } });

    const first = await viaCookie();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('2;w=60');
    expect(first.headers.get('ratelimit')).toBe('limit=2, remaining=1, reset=60');
    expect((await viaCookie()).status).toBe(200);
    const refused = await viaCookie();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany('minute', 2, 2, 60, NEXT_MINUTE));

    // The IP's own allowance of one is still whole.
    const anonymous = await ctx.request('GET', TRANSACTIONS);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: 'Unauthenticated.' });
    expect(anonymous.headers.get('ratelimit')).toBe('limit=1, remaining=0, reset=60');
  });

  test("the customer's plan windows apply to its cookie requests", async () => {
    const setup = await sqliteUnderTest.app();
    const ctx = setup;
    const { cookie, user } = await setup.newUser();
    const admin = await ctx.tokenFor('admin-1', 'employee');
    const plan = await ctx.request<{ id: number }>('POST', '/api/v1/admin/plans', {
      token: admin,
      body: { name: 'Hourly', slug: 'hourly', limits: { hour: 5 } },
    });
    expect(plan.status).toBe(201);
    const assigned = await ctx.request('PUT', `/api/v1/admin/customers/${user.id}/plan`, {
      token: admin,
      body: { planId: plan.body.id },
    });
    expect(assigned.status).toBe(204);

    const res = await ctx.request('GET', TRANSACTIONS, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('120;w=60, 5;w=3600');
    expect(res.headers.get('ratelimit')).toBe('limit=5, remaining=4, reset=3600');
  });

  test('a cookie on a state-changing request from another site counts against the IP', async () => {
    const setup = await sqliteUnderTest.app({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' } });
    const ctx = setup;
    const { cookie } = await setup.newUser();
    const post = (origin: string) =>
      ctx.request('POST', '/api/v1/admin/plans', {
        headers: { cookie, origin },
        body: { name: 'X', slug: 'x', limits: {} },
      });
    const foreign = await post('https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ message: 'This action is unauthorized.' });
    expect(foreign.headers.get('ratelimit')).toBe('limit=1, remaining=0, reset=60');
    expect((await post('https://evil.example')).status).toBe(429);
    // From our own origin the same cookie is the customer (refused 403 as a non-employee).
    const own = await post(ORIGIN);
    expect(own.status).toBe(403);
    expect(own.headers.get('ratelimit')).toBe('limit=120, remaining=119, reset=60');
  });
});
