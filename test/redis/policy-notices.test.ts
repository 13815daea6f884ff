import { describe, expect, test } from 'bun:test';
import { TokenLimits } from '@/api/customer/tokens/schemas';
import { createTestApp, manualClock } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisEnv,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
} from '../support/redis';

const LIMITS = '/api/v1/tokens/limits';
const SECRET = 'a-test-secret-shared-by-the-instances-0123456789';

/**
 * Two instances on one Redis and one database (the second serves the
 * first's customer store), as two servers behind a proxy.
 */
function twoInstances(env: Record<string, string>) {
  const clock = manualClock();
  const shared = { ...env, JWT_SECRET: SECRET };
  const a = createTestApp({ env: shared, clock });
  const b = createTestApp({ env: shared, clock, stores: { customer: a.deps.stores.customer } });
  return { a, b };
}

/** The plan slug `app` reports for the customer, polled until it is `slug` or a second went by. */
async function planSeen(app: ReturnType<typeof createTestApp>, token: string, slug: string) {
  let seen = '';
  for (let i = 0; i < 50 && seen !== slug; i++) {
    if (i > 0) await Bun.sleep(20);
    const report = await app.request('GET', LIMITS, { token });
    seen = TokenLimits.parse(report.body).rate_limits.plan.slug;
  }
  return seen;
}

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: a plan change on one instance reaches the others'),
  () => {
    test('another instance stops using the cached plan once the change is answered', async () => {
      const { a, b } = twoInstances(redisEnv());
      const admin = await a.tokenFor('admin', 'employee');
      const token = await a.tokenFor('customer-notice');
      // b reads (and caches) the Standard plan first.
      expect(await planSeen(b, token, 'standard')).toBe('standard');
      const gold = await a.request<{ id: number }>('POST', '/api/v1/admin/plans', {
        token: admin,
        body: { name: 'Gold', slug: 'gold', limits: { hour: 1000 } },
      });
      expect(gold.status).toBe(201);
      const assigned = await a.request('PUT', '/api/v1/admin/customers/customer-notice/plan', {
        token: admin,
        body: { planId: gold.body.id },
      });
      expect(assigned.status).toBe(204);
      expect(await planSeen(b, token, 'gold')).toBe('gold');
    });
  },
);

describe.skipIf(!redisServerInstalled)(
  ownRedisTitle('error: notices lost while Redis was away'),
  () => {
    test('an instance forgets its cached plans when its subscriber connects again', async () => {
      const redis = await ownRedisServer();
      try {
        const { a, b } = twoInstances({ REDIS_URL: redis.url, REDIS_PREFIX: 'notices:' });
        const token = await a.tokenFor('customer-away');
        const by = { actor: 'admin', ip: '127.0.0.1', userAgent: null, requestId: null, at: 0 };
        expect(await planSeen(b, token, 'standard')).toBe('standard');
        await redis.stop();
        // Written while Redis is away: the notice cannot be sent.
        const plan = await a.deps.stores.customer.createPlan(
          { name: 'Silver', slug: 'silver', limits: { day: 500 } },
          by,
        );
        await a.deps.stores.customer.assignPlan('customer-away', plan.id, by);
        await redis.start();
        expect(await planSeen(b, token, 'silver')).toBe('silver');
      } finally {
        await redis.stop();
      }
    });
  },
);
