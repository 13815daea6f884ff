import { describe, expect, test } from 'bun:test';
import type { PasswordHasher } from '@/accounts/hashing';
import { ORIGIN, UNBOUNDED } from '../accounts/support';
import { createTestApp, manualClock, problemOf, type TestContext } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisEnv,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
} from '../support/redis';

/** Hashes at no cost: these tests are about the counting. */
const cheap: PasswordHasher = {
  hash: async (password) => `cheap:${password}`,
  verify: async (password, hash) => hash === `cheap:${password}`,
};

const signIn = (ctx: TestContext, ip: string, email: string) =>
  ctx.request('POST', '/auth/sign-in', {
    body: { email, password: 'correct horse battery' },
    headers: { 'x-forwarded-for': ip },
  });

const options = (ctx: TestContext, ip: string) =>
  ctx.request('POST', '/auth/passkey/authenticate/options', {
    body: {},
    headers: { 'x-forwarded-for': ip },
  });

const signUp = (ctx: TestContext, ip: string, email: string) =>
  ctx.request('POST', '/auth/sign-up', {
    body: { email, password: 'correct horse battery' },
    headers: { 'x-forwarded-for': ip },
  });

/** Two instances on one Redis (one prefix), one database and one clock. */
function twoInstances(env: Record<string, string>) {
  const shared = { PUBLIC_ORIGIN: ORIGIN, ...UNBOUNDED, TRUST_PROXY: 'true', ...env };
  const clock = manualClock();
  const a = createTestApp({ env: shared, clock, hasher: cheap });
  // On one database, as instances are: an account signed up on one signs in on the other.
  const b = createTestApp({ env: shared, clock, hasher: cheap, databaseOf: a });
  return { a, b, clock };
}

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: one bound per address for all instances'),
  () => {
    test('passkey options: 3 a minute between two instances, then 429 with Retry-After on either', async () => {
      const { a, b, clock } = twoInstances({
        ...redisEnv(),
        PASSKEY_OPTIONS_PER_IP_PER_MINUTE: '3',
      });
      const ip = '198.51.100.21';
      expect((await options(a, ip)).status).toBe(200);
      clock.advance(20_000);
      expect((await options(b, ip)).status).toBe(200);
      expect((await options(a, ip)).status).toBe(200);
      for (const instance of [a, b]) {
        const refused = await options(instance, ip);
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual(problemOf(429));
        // The first of the three leaves the window 60 s after it was taken.
        expect(refused.headers.get('retry-after')).toBe('40');
      }
      expect((await options(b, '198.51.100.22')).status).toBe(200);
      clock.advance(40_000);
      expect((await options(b, ip)).status).toBe(200);
    });

    test('sign-ups: 2 an hour between two instances; the refused one is not stored', async () => {
      const { a, b } = twoInstances({ ...redisEnv(), SIGN_UP_PER_IP_PER_HOUR: '2' });
      const ip = '198.51.100.23';
      expect((await signUp(a, ip, 'one@example.com')).status).toBe(202);
      expect((await signUp(b, ip, 'two@example.com')).status).toBe(202);
      const refused = await signUp(a, ip, 'three@example.com');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(problemOf(429));
      expect(refused.headers.get('retry-after')).toBe('3600');
      expect(await a.deps.stores.accounts.findUserByEmail('three@example.com')).toBeUndefined();
      expect((await signUp(b, ip, 'four@example.com')).status).toBe(429);
      expect(await b.deps.stores.accounts.findUserByEmail('four@example.com')).toBeUndefined();
      expect((await signUp(b, '198.51.100.24', 'five@example.com')).status).toBe(202);
    });

    test('password hashing: correct sign-ins of one account, 2 a minute between two instances, then 429 on either', async () => {
      const { a, b, clock } = twoInstances({
        ...redisEnv(),
        PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '2',
      });
      expect((await signUp(a, '198.51.100.26', 'six@example.com')).status).toBe(202);
      const ip = '198.51.100.27';
      expect((await signIn(a, ip, 'six@example.com')).status).toBe(200);
      clock.advance(30_000);
      expect((await signIn(b, ip, 'six@example.com')).status).toBe(200);
      for (const instance of [a, b]) {
        const refused = await signIn(instance, ip, 'six@example.com');
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual(problemOf(429));
        expect(refused.headers.get('retry-after')).toBe('30');
      }
    });

    test('password hashing: one address, 3 a minute between two instances, sign-ups and sign-ins together', async () => {
      const { a, b } = twoInstances({ ...redisEnv(), PASSWORD_HASHES_PER_IP_PER_MINUTE: '3' });
      const ip = '198.51.100.28';
      expect((await signUp(a, ip, 'seven@example.com')).status).toBe(202);
      expect((await signIn(b, ip, 'seven@example.com')).status).toBe(200);
      expect((await signIn(a, ip, 'nobody@example.com')).status).toBe(401);
      expect((await signIn(b, ip, 'seven@example.com')).status).toBe(429);
      expect((await signUp(a, ip, 'eight@example.com')).status).toBe(429);
      expect((await signIn(b, '198.51.100.29', 'seven@example.com')).status).toBe(200);
    });
  },
);

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: Redis goes away'), () => {
  test('each instance bounds an address at limit ÷ instances in memory, then Redis counts again', async () => {
    const redis = await ownRedisServer();
    try {
      const { a, b } = twoInstances({
        REDIS_URL: redis.url,
        REDIS_PREFIX: 'address-outage:',
        PASSKEY_OPTIONS_PER_IP_PER_MINUTE: '6',
      });
      await a.deps.instances!.beat();
      expect(await b.deps.instances!.beat()).toBe(2);
      expect(await a.deps.instances!.beat()).toBe(2);
      const ip = '198.51.100.25';
      expect((await options(a, ip)).status).toBe(200);

      await redis.stop();
      // Neither open (6 on each) nor shut (none): 3 on each instance.
      for (const instance of [a, b]) {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await options(instance, ip)).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
      }

      // Back (a fresh server: nothing persisted), without restarting either instance.
      await redis.start();
      for (let i = 0; i < 50 && (await a.request('GET', '/health')).status !== 200; i++) {
        await Bun.sleep(100);
      }
      const shared: number[] = [];
      for (let i = 0; i < 8; i++) shared.push((await options(i % 2 ? a : b, ip)).status);
      expect(shared).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    } finally {
      await redis.stop();
    }
  });
});
