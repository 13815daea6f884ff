import { describe, expect, test } from 'bun:test';
import { TokenLimits } from '@/api/customer/tokens/schemas';
import { calendarSpan } from '@/rate-limit/calendar';
import { RedisRateLimitStore } from '@/rate-limit/redis-store';
import type { WindowRule } from '@/rate-limit/store';
import { burst, countOf } from '../customer/support';
import { createTestApp, manualClock } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisEnv,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
  testConnection,
} from '../support/redis';

const TRANSACTIONS = '/api/v1/c/transactions';
const LIMITS = '/api/v1/tokens/limits';
const SECRET = 'a-test-secret-shared-by-the-instances-0123456789';

/** `count` instances on one Redis prefix (one clock, one token secret), as behind a proxy. */
function instances(count: number, clock = manualClock()) {
  const env = { ...redisEnv(), JWT_SECRET: SECRET };
  return Array.from({ length: count }, () => createTestApp({ env, clock }));
}

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: one limit for all instances'),
  () => {
    test('a burst of 3× the limit spread over 3 instances admits exactly the limit', async () => {
      const apps = instances(3);
      const token = await apps[0]!.tokenFor('customer-spread');
      const statuses = await burst(360, 360, (i) =>
        apps[i % 3]!.request('GET', TRANSACTIONS, { token }),
      );
      expect(countOf(statuses, 200)).toBe(120);
      expect(countOf(statuses, 429)).toBe(240);
    });

    test('usage counted on one instance is reported by another, in the body and the headers', async () => {
      const [a, b] = instances(2);
      const token = await a!.tokenFor('customer-report');
      await burst(7, 4, () => a!.request('GET', TRANSACTIONS, { token }));
      const report = await b!.request('GET', LIMITS, { token });
      expect(report.status).toBe(200);
      const body = TokenLimits.parse(report.body);
      expect(body.rate_limits.limits[0]).toMatchObject({
        window: 'minute',
        used: 7,
        remaining: 113,
      });
      expect(report.headers.get('ratelimit')).toBe('limit=120, remaining=113, reset=60');
    });

    test('the fast lane awaits the shared count: one count per request, whichever instance', async () => {
      const [a, b] = instances(2);
      const token = await a!.tokenFor('customer-lanes');
      // The first request on each verifies the token in the full pipeline; the rest are fast.
      for (const app of [a!, b!, a!, b!]) await app.request('GET', TRANSACTIONS, { token });
      const last = await b!.request('GET', TRANSACTIONS, { token });
      expect(last.headers.get('x-ratelimit-remaining')).toBe('115');
      expect(a!.lanes.fast + b!.lanes.fast).toBe(3);
    });
  },
);

describe.skipIf(redisSkipReason !== undefined)(redisTitle('happy: the Redis store'), () => {
  const now = Date.UTC(2026, 10, 22, 12, 34, 56);
  const rules: WindowRule[] = [
    { kind: 'minute', limit: 10 },
    { kind: 'hour', limit: 3 },
  ];

  test('a calendar window expires at its end and outlives the instance that counted it', async () => {
    const redis = testConnection();
    const first = new RedisRateLimitStore(redis);
    for (let i = 0; i < 2; i++) expect((await first.hit('c:ttl', rules, now)).admitted).toBe(true);
    const { start, end } = calendarSpan('hour', now);
    const ttl = Number(await redis.send('PTTL', [redis.key('rl:{c:ttl}', 'hour', String(start))]));
    expect(ttl).toBeGreaterThan(end - now - 1000);
    expect(ttl).toBeLessThanOrEqual(end - now);

    // A new store (a restarted instance) over the same Redis sees the same usage.
    const again = new RedisRateLimitStore(redis);
    const usage = await again.peek('c:ttl', rules, now + 1000);
    expect(usage.map((w) => w.used)).toEqual([2, 2]);
    expect(usage[1]!.resetAt).toBe(end);
  });

  test('a refused hit records in no window', async () => {
    const store = new RedisRateLimitStore(testConnection());
    for (let i = 0; i < 3; i++) await store.hit('c:refused', rules, now + i);
    const refused = await store.hit('c:refused', rules, now + 10);
    expect(refused.admitted).toBe(false);
    expect(refused.windows.map((w) => w.used)).toEqual([3, 3]);
  });
});

describe.skipIf(!redisServerInstalled)(ownRedisTitle('happy: the script'), () => {
  test('runs by its SHA1, and is sent whole only when the server does not know it', async () => {
    const server = await ownRedisServer();
    try {
      const redis = testConnection(server.url);
      const store = new RedisRateLimitStore(redis);
      const calls = async (command: string) => {
        const info = String(await redis.send('INFO', ['commandstats']));
        return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
      };
      const rules: WindowRule[] = [{ kind: 'minute', limit: 100 }];
      for (let i = 0; i < 5; i++) await store.hit('c:script', rules, Date.now());
      expect(await calls('eval')).toBe(1);

      await redis.send('SCRIPT', ['FLUSH']);
      const after = await store.hit('c:script', rules, Date.now());
      expect(after.windows[0]!.used).toBe(6);
      expect(await calls('eval')).toBe(2);
    } finally {
      await server.stop();
    }
  });
});
