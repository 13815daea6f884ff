import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createService } from '@/app';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import { manualClock } from '../support/harness';
import { redisEnv, redisSkipReason, redisTitle } from '../support/redis';
import {
  type CustomerTestApp,
  postgresUnderTest,
  type StoreUnderTest,
  sqliteUnderTest,
} from './stores';
import { burst, countOf, serve, tooMany } from './support';

const TRANSACTIONS = '/api/v1/c/transactions';
const LIMITS = '/api/v1/tokens/limits';
/** The harness clock starts at 2026-11-22T12:00:00Z. */
const NEXT_MINUTE = '2026-11-22T12:01:00+00:00';

const servers: { stop: () => void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
});

/** The limiter store's variables of the suite running: none (in-process) or a Redis under a prefix of its own. */
let storeEnv: () => Record<string, string> = () => ({});
/** The customer store of the suite running (plans, assignments, calendar usage). */
let customerStore: StoreUnderTest = sqliteUnderTest;

async function start(env: Record<string, string> = {}, clock = manualClock()) {
  const ctx = await customerStore.app({ env: { ...storeEnv(), ...env }, clock });
  const http = serve(ctx.fetch);
  servers.push(http);
  return { ...ctx, http };
}

/** A second app on the same data, as after a restart. */
function restart(ctx: CustomerTestApp) {
  const db = openDatabase(ctx.config.databasePath);
  migrateDatabase(db);
  const deps = buildDeps({
    config: ctx.config,
    db,
    logger: createLogger('silent'),
    clock: ctx.clock,
    stores: { customer: ctx.restartedStore() },
    // The same Redis (and prefix) as before the restart; nothing of the store was in the process.
    redis: ctx.deps.redis,
  });
  const http = serve(createService(deps).fetch);
  servers.push(http);
  return http;
}

async function makePlan(ctx: Awaited<ReturnType<typeof start>>, sub: string, limits: object) {
  const admin = await ctx.tokenFor('admin-1', 'employee');
  const plan = await ctx.http.call<{ id: number }>('POST', '/api/v1/admin/plans', {
    token: admin,
    body: { name: 'Test plan', slug: `plan-${sub}`, limits },
  });
  expect(plan.status).toBe(201);
  const assigned = await ctx.http.call('PUT', `/api/v1/admin/customers/${sub}/plan`, {
    token: admin,
    body: { planId: plan.body.id },
  });
  expect(assigned.status).toBe(204);
  return plan.body.id;
}

/** The same requests and answers whichever store holds the windows. */
function limiterTests() {
  describe('happy: base limits per minute', () => {
    test('the 61st anonymous request in a minute answers 429 with the exact body', async () => {
      const ctx = await start();
      const statuses = await burst(60, 16, () => ctx.http.call('GET', TRANSACTIONS));
      expect(countOf(statuses, 401)).toBe(60);
      const refused = await ctx.http.call('GET', TRANSACTIONS);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(tooMany('minute', 60, 60, 60, NEXT_MINUTE));
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.headers.get('ratelimit')).toBe('limit=60, remaining=0, reset=60');
    });

    test('the 121st customer request in a minute answers 429 with the exact body', async () => {
      const ctx = await start();
      const token = await ctx.tokenFor('customer-121');
      const statuses = await burst(120, 16, () => ctx.http.call('GET', TRANSACTIONS, { token }));
      expect(countOf(statuses, 200)).toBe(120);
      const refused = await ctx.http.call('GET', TRANSACTIONS, { token });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(tooMany('minute', 120, 120, 60, NEXT_MINUTE));
      expect(refused.headers.get('retry-after')).toBe('60');
    });

    test('the 5001st employee request in a minute answers 429 with the exact body', async () => {
      const ctx = await start();
      const token = await ctx.tokenFor('employee-5001', 'employee');
      const statuses = await burst(5000, 32, () => ctx.http.call('GET', TRANSACTIONS, { token }));
      expect(countOf(statuses, 200)).toBe(5000);
      const refused = await ctx.http.call('GET', TRANSACTIONS, { token });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(tooMany('minute', 5000, 5000, 60, NEXT_MINUTE));
    });

    test('300 concurrent requests from a fresh customer admit exactly 120', async () => {
      const ctx = await start();
      const token = await ctx.tokenFor('customer-concurrent');
      const statuses = await burst(300, 300, () => ctx.http.call('GET', TRANSACTIONS, { token }));
      expect(countOf(statuses, 200)).toBe(120);
      expect(countOf(statuses, 429)).toBe(180);
    });

    test('the sliding window admits again once its oldest request is 60 s old', async () => {
      const ctx = await start();
      const token = await ctx.tokenFor('customer-sliding');
      expect((await ctx.http.call('GET', TRANSACTIONS, { token })).status).toBe(200);
      ctx.clock.advance(30_000);
      const rest = await burst(119, 16, () => ctx.http.call('GET', TRANSACTIONS, { token }));
      expect(countOf(rest, 200)).toBe(119);

      ctx.clock.advance(29_999);
      const early = await ctx.http.call('GET', TRANSACTIONS, { token });
      expect(early.status).toBe(429);
      expect(early.body).toEqual(tooMany('minute', 120, 120, 1, NEXT_MINUTE));

      ctx.clock.advance(1);
      expect((await ctx.http.call('GET', TRANSACTIONS, { token })).status).toBe(200);
      // One slot freed, one taken: the next waits for the 30-second batch.
      const again = await ctx.http.call('GET', TRANSACTIONS, { token });
      expect(again.status).toBe(429);
      expect(again.body).toEqual(tooMany('minute', 120, 120, 30, '2026-11-22T12:01:30+00:00'));
    });
  });

  describe('happy: plan windows', () => {
    planWindowTests();
  });

  describe('happy: headers and callers', () => {
    test('every /api/v1 answer carries the rate-limit headers', async () => {
      const ctx = await start();
      const token = await ctx.tokenFor('customer-headers');
      const answers = [
        await ctx.http.call('GET', TRANSACTIONS, { token }),
        await ctx.http.call('GET', TRANSACTIONS),
        await ctx.http.call('GET', '/api/v1/nowhere', { token }),
        await ctx.http.call('GET', `${TRANSACTIONS}?per_page=0`, { token }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 422]);
      const [ok, anonymous, missing, invalid] = answers;
      expect(ok!.headers.get('ratelimit-policy')).toBe('120;w=60');
      expect(ok!.headers.get('ratelimit')).toBe('limit=120, remaining=119, reset=60');
      expect(ok!.headers.get('x-ratelimit-limit')).toBe('120');
      expect(ok!.headers.get('x-ratelimit-remaining')).toBe('119');
      expect(ok!.headers.get('x-ratelimit-reset')).toBe(
        String(Date.UTC(2026, 10, 22, 12, 1) / 1000),
      );
      expect(anonymous!.headers.get('ratelimit')).toBe('limit=60, remaining=59, reset=60');
      expect(missing!.headers.get('ratelimit')).toBe('limit=120, remaining=118, reset=60');
      expect(invalid!.headers.get('ratelimit')).toBe('limit=120, remaining=117, reset=60');
      expect((await ctx.http.call('GET', '/health')).headers.get('ratelimit')).toBeNull();
    });

    test('plan windows are listed in RateLimit-Policy; RateLimit shows the tightest', async () => {
      const ctx = await start();
      await makePlan(ctx, 'customer-policy', { hour: 10, day: 500, week: 1000, month: 2000 });
      const token = await ctx.tokenFor('customer-policy');
      const res = await ctx.http.call('GET', TRANSACTIONS, { token });
      expect(res.headers.get('ratelimit-policy')).toBe(
        '120;w=60, 10;w=3600, 500;w=86400, 1000;w=604800, 2000;w=2592000',
      );
      expect(res.headers.get('ratelimit')).toBe('limit=10, remaining=9, reset=3600');
    });

    test('a bad token is counted against the client IP', async () => {
      const ctx = await start({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' });
      const statuses = await burst(4, 1, (i) =>
        ctx.http.call('GET', TRANSACTIONS, { token: i % 2 ? 'not.a.token' : undefined }),
      );
      expect(statuses).toEqual([401, 401, 401, 429]);
      const customer = await ctx.tokenFor('customer-unaffected');
      expect((await ctx.http.call('GET', TRANSACTIONS, { token: customer })).status).toBe(200);
    });

    test('with TRUST_PROXY the X-Forwarded-For address is counted, else the peer', async () => {
      const trusted = await start({
        ...{ TRUST_PROXY: 'true', TRUSTED_PROXIES: '127.0.0.0/8, ::1, 10.0.0.0/8' },
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1',
      });
      // A second proxy (10.0.0.1) between the client and the first one.
      const from = (ip: string) => ({ headers: { 'x-forwarded-for': `${ip}, 10.0.0.1` } });
      expect((await trusted.http.call('GET', TRANSACTIONS, from('203.0.113.1'))).status).toBe(401);
      expect((await trusted.http.call('GET', TRANSACTIONS, from('203.0.113.2'))).status).toBe(401);
      expect((await trusted.http.call('GET', TRANSACTIONS, from('203.0.113.1'))).status).toBe(429);

      const direct = await start({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' });
      expect((await direct.http.call('GET', TRANSACTIONS, from('203.0.113.1'))).status).toBe(401);
      expect((await direct.http.call('GET', TRANSACTIONS, from('203.0.113.2'))).status).toBe(429);
    });

    test('an IPv6 client is counted by its /64, however written; RATE_LIMIT_IPV6_PREFIX=128 by each address', async () => {
      const env = { TRUST_PROXY: 'true', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' };
      const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
      const network = await start(env);
      for (const ip of ['2001:db8:7::1', '[2001:0DB8:7:0:0:0:0:2]:443']) {
        expect((await network.http.call('GET', TRANSACTIONS, from(ip))).status).toBe(401);
      }
      const refused = await network.http.call('GET', TRANSACTIONS, from('2001:db8:7::ffff:3'));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(tooMany('minute', 2, 2, 60, NEXT_MINUTE));
      expect((await network.http.call('GET', TRANSACTIONS, from('2001:db8:7:1::1'))).status).toBe(
        401,
      );

      const each = await start({ ...env, RATE_LIMIT_IPV6_PREFIX: '128' });
      for (let i = 0; i < 2; i++) {
        expect((await each.http.call('GET', TRANSACTIONS, from('2001:db8:7::1'))).status).toBe(401);
      }
      expect((await each.http.call('GET', TRANSACTIONS, from('2001:DB8:7:0::1'))).status).toBe(429);
      expect((await each.http.call('GET', TRANSACTIONS, from('2001:db8:7::2'))).status).toBe(401);
    });

    test('RATE_LIMITS=off neither counts nor adds headers', async () => {
      const ctx = await start({ RATE_LIMITS: 'off', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' });
      const statuses = await burst(3, 1, () => ctx.http.call('GET', TRANSACTIONS));
      expect(statuses).toEqual([401, 401, 401]);
      expect((await ctx.http.call('GET', TRANSACTIONS)).headers.get('ratelimit')).toBeNull();
    });
  });
}

/** Plans' calendar windows: these read plans and keep usage through the customer store. */
function planWindowTests() {
  test('a plan with hour: 5 refuses the 6th request until the next UTC hour', async () => {
    const ctx = await start({}, manualClock(Date.UTC(2026, 10, 22, 12, 34, 56)));
    await makePlan(ctx, 'customer-hourly', { hour: 5 });
    const token = await ctx.tokenFor('customer-hourly');
    const statuses = await burst(5, 5, () => ctx.http.call('GET', TRANSACTIONS, { token }));
    expect(countOf(statuses, 200)).toBe(5);
    const refused = await ctx.http.call('GET', TRANSACTIONS, { token });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany('hour', 5, 5, 1504, '2026-11-22T13:00:00+00:00'));
    expect(refused.headers.get('retry-after')).toBe('1504');

    ctx.clock.set(Date.UTC(2026, 10, 22, 13, 0, 0));
    expect((await ctx.http.call('GET', TRANSACTIONS, { token })).status).toBe(200);
  });

  test('a refused request counts in no window; the window resetting last is reported', async () => {
    const ctx = await start({}, manualClock(Date.UTC(2026, 10, 22, 23, 59, 0)));
    await makePlan(ctx, 'customer-both', { hour: 3, day: 3, month: 10 });
    const token = await ctx.tokenFor('customer-both');
    await burst(3, 1, () => ctx.http.call('GET', TRANSACTIONS, { token }));
    const refused = await ctx.http.call('GET', TRANSACTIONS, { token });
    // hour and day are both exhausted and both end at midnight; month resets last but has room.
    expect(refused.body).toEqual(tooMany('day', 3, 3, 60, '2026-11-23T00:00:00+00:00'));
    await burst(5, 5, () => ctx.http.call('GET', TRANSACTIONS, { token }));
    const usage = await ctx.http.call<{ rate_limits: { limits: { used: number }[] } }>(
      'GET',
      LIMITS,
      { token },
    );
    expect(usage.body.rate_limits.limits.map((w) => w.used)).toEqual([3, 3, 3, 3]);
  });

  test('a plan minute lowers the base window', async () => {
    const ctx = await start();
    await makePlan(ctx, 'customer-slow', { minute: 2 });
    const token = await ctx.tokenFor('customer-slow');
    await burst(2, 1, () => ctx.http.call('GET', TRANSACTIONS, { token }));
    const refused = await ctx.http.call('GET', TRANSACTIONS, { token });
    expect(refused.body).toEqual(tooMany('minute', 2, 2, 60, NEXT_MINUTE));
  });

  test('usage of a day window is the same after a restart', async () => {
    const ctx = await start({}, manualClock(Date.UTC(2026, 10, 22, 9, 15, 0)));
    await makePlan(ctx, 'customer-daily', { day: 100, week: 1000 });
    const token = await ctx.tokenFor('customer-daily');
    await burst(7, 4, () => ctx.http.call('GET', TRANSACTIONS, { token }));
    await ctx.deps.limiter.flush();

    const after = restart(ctx);
    ctx.clock.advance(3_600_000);
    const usage = await after.call<{ rate_limits: { limits: unknown[] } }>('GET', LIMITS, {
      token,
    });
    expect(usage.status).toBe(200);
    expect(usage.body.rate_limits.limits).toEqual([
      {
        window: 'minute',
        limit: 120,
        used: 0,
        remaining: 120,
        resets_in_seconds: 60,
        resets_at: '2026-11-22T10:16:00+00:00',
      },
      {
        window: 'day',
        limit: 100,
        used: 7,
        remaining: 93,
        resets_in_seconds: 13 * 3600 + 45 * 60,
        resets_at: '2026-11-23T00:00:00+00:00',
      },
      {
        window: 'week',
        limit: 1000,
        used: 7,
        remaining: 993,
        resets_in_seconds: 13 * 3600 + 45 * 60,
        // 2026-11-22 is a Sunday: the week ends at Monday 00:00.
        resets_at: '2026-11-23T00:00:00+00:00',
      },
    ]);
  });
}

const stores = [
  { title: 'in-process store', env: () => ({}), skip: false },
  { title: redisTitle('Redis store'), env: redisEnv, skip: redisSkipReason !== undefined },
];
for (const store of stores) {
  describe.skipIf(store.skip)(store.title, () => {
    beforeAll(() => {
      storeEnv = store.env;
      customerStore = sqliteUnderTest;
    });
    limiterTests();
  });
}

// The plan windows once more with plans, assignments and calendar usage in PostgreSQL.
const postgres = postgresUnderTest();
postgres.describe('in-process store, plans and calendar usage in the customer store', () => {
  beforeAll(() => {
    storeEnv = () => ({});
    customerStore = postgres;
  });
  planWindowTests();
});
