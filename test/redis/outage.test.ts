import { describe, expect, test } from 'bun:test';
import { LiveInstances, shareOf } from '@/redis/instances';
import { burst, countOf } from '../customer/support';
import { createTestApp, manualClock } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
  testConnection,
} from '../support/redis';

const TRANSACTIONS = '/api/v1/c/transactions';
const LIMITS = '/api/v1/tokens/limits';
const SECRET = 'a-test-secret-shared-by-the-instances-0123456789';

describe('happy: the share of a limit', () => {
  test('is limit ÷ live instances, rounded down, never below 1', () => {
    expect(shareOf(120, 1)).toBe(120);
    expect(shareOf(120, 2)).toBe(60);
    expect(shareOf(120, 7)).toBe(17);
    expect(shareOf(2, 3)).toBe(1);
    expect(shareOf(60, 0)).toBe(60);
  });
});

describe.skipIf(redisSkipReason !== undefined)(redisTitle('happy: live instances'), () => {
  test('are counted by heartbeat; one that leaves is not counted at the next beat', async () => {
    const redis = testConnection();
    const [a, b, c] = ['a', 'b', 'c'].map((name) => new LiveInstances(redis, name));
    expect(a!.count).toBe(1);
    await a!.beat();
    await b!.beat();
    expect(await c!.beat()).toBe(3);
    await b!.leave();
    expect(await a!.beat()).toBe(2);
  });
});

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: Redis goes away mid-run'), () => {
  test('each instance limits at limit ÷ instances, then the shared windows count again', async () => {
    const redis = await ownRedisServer();
    try {
      const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'outage:', JWT_SECRET: SECRET };
      const clock = manualClock();
      const [a, b] = [0, 1].map(() => createTestApp({ env, clock }));
      // Both have said they are alive: each sees two instances.
      await a!.deps.instances!.beat();
      expect(await b!.deps.instances!.beat()).toBe(2);
      expect(await a!.deps.instances!.beat()).toBe(2);

      const token = await a!.tokenFor('customer-outage');
      const before = await burst(10, 5, () => a!.request('GET', TRANSACTIONS, { token }));
      expect(countOf(before, 200)).toBe(10);

      await redis.stop();
      expect((await a!.request('GET', '/health')).status).toBe(503);
      // Neither open (the whole 120 on each) nor shut (nothing): 60 on each instance.
      for (const instance of [a!, b!]) {
        const statuses = await burst(100, 10, () =>
          instance.request('GET', TRANSACTIONS, { token }),
        );
        expect(countOf(statuses, 200)).toBe(60);
        expect(countOf(statuses, 429)).toBe(40);
      }
      const refused = await a!.request('GET', TRANSACTIONS, { token });
      expect(refused.headers.get('ratelimit')).toBe('limit=60, remaining=0, reset=60');

      // Back (a fresh server: nothing persisted), without restarting either instance.
      await redis.start();
      let health = await a!.request('GET', '/health');
      for (let i = 0; i < 50 && health.status !== 200; i++) {
        await Bun.sleep(100);
        health = await a!.request('GET', '/health');
      }
      expect(health.status).toBe(200);
      const shared = await burst(130, 20, (i) =>
        (i % 2 ? a! : b!).request('GET', TRANSACTIONS, { token }),
      );
      expect(countOf(shared, 200)).toBe(120);
      const report = await b!.request('GET', LIMITS, { token });
      expect(report.headers.get('ratelimit')).toBe('limit=120, remaining=0, reset=60');
    } finally {
      await redis.stop();
    }
  });

  test('a server that stops answering: one request waits the timeout, the next ones fall back at once', async () => {
    const redis = await ownRedisServer();
    try {
      const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'hung:', JWT_SECRET: SECRET };
      const ctx = createTestApp({ env, clock: manualClock() });
      const token = await ctx.tokenFor('customer-hung');
      expect((await ctx.request('GET', TRANSACTIONS, { token })).status).toBe(200);

      redis.pause();
      let started = performance.now();
      expect((await ctx.request('GET', TRANSACTIONS, { token })).status).toBe(200);
      const first = performance.now() - started;
      started = performance.now();
      const next = await burst(10, 10, () => ctx.request('GET', TRANSACTIONS, { token }));
      const after = performance.now() - started;
      expect(countOf(next, 200)).toBe(10);
      // The command timeout is 2 s; the quiet second after it answers without waiting.
      expect(first).toBeGreaterThan(1_500);
      expect(after).toBeLessThan(500);

      redis.resume();
      let health = await ctx.request('GET', '/health');
      for (let i = 0; i < 50 && health.status !== 200; i++) {
        await Bun.sleep(100);
        health = await ctx.request('GET', '/health');
      }
      expect(health.status).toBe(200);
    } finally {
      await redis.stop();
    }
  });
});
