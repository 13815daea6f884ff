import { describe, expect, test } from 'bun:test';
import type { PasswordHasher } from '@/accounts/hashing';
import { createTestApp, manualClock, problemOf } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisEnv,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
} from '../support/redis';

/** Every password is wrong, at no cost: these tests are about the counting. */
const rejecting: PasswordHasher = {
  hash: async () => 'no-hash',
  verify: async () => false,
};

/** The hashing limits lifted: these tests count failures, past the default 5 a minute per account. */
const HASHING_UNBOUNDED = {
  PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '1000000',
  PASSWORD_HASHES_PER_IP_PER_MINUTE: '1000000',
};

const signIn = (ctx: ReturnType<typeof createTestApp>, ip: string) =>
  ctx.request('POST', '/auth/sign-in', {
    body: { email: 'someone@example.com', password: 'a wrong password' },
    headers: { 'x-forwarded-for': ip },
  });

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: one count for all instances'),
  () => {
    test('failures on two instances add up: the 11th from an address is refused on either', async () => {
      const env = { ...redisEnv(), TRUST_PROXY: 'true', ...HASHING_UNBOUNDED };
      const clock = manualClock();
      const [a, b] = [0, 1].map(() => createTestApp({ env, clock, hasher: rejecting }));
      for (let i = 0; i < 10; i++) {
        expect((await signIn(i % 2 ? a! : b!, '203.0.113.7')).status).toBe(401);
      }
      for (const instance of [a!, b!]) {
        const refused = await signIn(instance, '203.0.113.7');
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('900');
      }
      expect((await signIn(a!, '203.0.113.8')).status).toBe(401);
    });
  },
);

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: Redis goes away'), () => {
  test('sign-in fails closed with 503 and Retry-After, and counts again once Redis is back', async () => {
    const redis = await ownRedisServer();
    try {
      const env = { REDIS_URL: redis.url, TRUST_PROXY: 'true', ...HASHING_UNBOUNDED };
      const ctx = createTestApp({ env, hasher: rejecting });
      expect((await signIn(ctx, '203.0.113.9')).status).toBe(401);

      await redis.stop();
      const refused = await signIn(ctx, '203.0.113.9');
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual(problemOf(503));
      expect(refused.headers.get('retry-after')).toBe('5');

      // A fresh server (nothing persisted): counting starts over, no restart of the service.
      await redis.start();
      let back = await signIn(ctx, '203.0.113.9');
      for (let i = 0; i < 50 && back.status === 503; i++) {
        await Bun.sleep(100);
        back = await signIn(ctx, '203.0.113.9');
      }
      expect(back.status).toBe(401);
    } finally {
      await redis.stop();
    }
  });
});
