import { beforeAll, describe, expect, test } from 'bun:test';
import type { PasswordHasher } from '@/accounts/hashing';
import { DEFAULT_AUDIT_ROWS_PER_HOUR } from '@/audit/operations';
import { problemOf } from '../support/harness';
import { redisEnv, redisSkipReason, redisTitle } from '../support/redis';
import {
  type AccountsTestApp,
  type StoreUnderTest,
  sqliteUnderTest,
  storesUnderTest,
} from './stores';
import { PASSWORD, UNKNOWN_PASSKEY_ASSERTION } from './support';

/**
 * Sign-ups hash at no cost (these tests are about the counting); accounts
 * made by `createAccount` keep their real, cheap argon2id hash.
 */
const cheap: PasswordHasher = {
  hash: async (password) => `cheap:${password}`,
  verify: async (password, hash) =>
    hash.startsWith('cheap:') ? hash === `cheap:${password}` : Bun.password.verify(password, hash),
};

/** Spellings of addresses in 2001:db8:1:1::/64, the client's own network. */
const ONE_NETWORK = [
  '2001:db8:1:1::1',
  '2001:0DB8:1:1:0:0:0:2',
  '[2001:db8:1:1:ffff:ffff:ffff:ffff]:443',
  '2001:db8:1:1:abcd::9',
];
/** The next /64: another customer. */
const NEXT_NETWORK = '2001:db8:1:2::1';

/** Requests through the pipeline from `ip`, as the proxy in front reports it. */
function clientsOf(ctx: AccountsTestApp) {
  const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
  return {
    signUp: (ip: string, email: string) =>
      ctx.request('POST', '/auth/sign-up', { body: { email, password: PASSWORD }, ...from(ip) }),
    options: (ip: string) =>
      ctx.request('POST', '/auth/passkey/authenticate/options', { body: {}, ...from(ip) }),
    signIn: (ip: string, email: string, password: string) =>
      ctx.request('POST', '/auth/sign-in', { body: { email, password }, ...from(ip) }),
    failedPasskey: (ip: string) =>
      ctx.request('POST', '/auth/passkey/authenticate', {
        body: { response: UNKNOWN_PASSKEY_ASSERTION },
        ...from(ip),
      }),
  };
}

/** `count` addresses of 2001:db8:<network>::/64, written one way or another. */
const addressesIn = (network: string, count: number) =>
  Array.from({ length: count }, (_, i) =>
    i % 2
      ? `2001:0db8:${network}:0:0:0:0:${(i + 1).toString(16)}`
      : `[2001:DB8:${network}::${(i + 1).toString(16).toUpperCase()}]`,
  );

/** The same rules whichever store or Redis counts (`env`: none, or a Redis under a prefix of its own). */
function ipv6LimitTests(env: () => Record<string, string>, under: StoreUnderTest) {
  const limits = {
    TRUST_PROXY: 'true',
    SIGN_UP_PER_IP_PER_HOUR: '3',
    PASSKEY_OPTIONS_PER_IP_PER_MINUTE: '3',
  };
  let ctx: AccountsTestApp;
  let full: AccountsTestApp;
  beforeAll(async () => {
    ctx = await under.app({ env: { ...limits, ...env() }, hasher: cheap });
    full = await under.app({
      env: { ...limits, RATE_LIMIT_IPV6_PREFIX: '128', ...env() },
      hasher: cheap,
    });
  });

  describe('by default an IPv6 client is counted by its /64', () => {
    let client: ReturnType<typeof clientsOf>;
    beforeAll(() => {
      client = clientsOf(ctx);
    });

    test('sign-ups: three from addresses of one /64, however written, use up its bound', async () => {
      for (const [i, ip] of ONE_NETWORK.slice(0, 3).entries()) {
        expect((await client.signUp(ip, `six${i}@x.example`)).status).toBe(202);
      }
      const refused = await client.signUp(ONE_NETWORK[3]!, 'six3@x.example');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(problemOf(429));
      expect(refused.headers.get('retry-after')).toBe('3600');
      expect(await ctx.findUser('six3@x.example')).toBeUndefined();
      expect((await client.signUp(NEXT_NETWORK, 'next@x.example')).status).toBe(202);
      // IPv4 is counted by the full address, a mapped IPv6 spelling as the same IPv4 address.
      for (const [i, ip] of ['198.51.100.1', '::ffff:198.51.100.1', '::FFFF:c633:6401'].entries()) {
        expect((await client.signUp(ip, `v4-${i}@x.example`)).status).toBe(202);
      }
      expect((await client.signUp('198.51.100.1', 'v4-last@x.example')).status).toBe(429);
      expect((await client.signUp('198.51.100.2', 'v4-other@x.example')).status).toBe(202);
    });

    test('passkey options: addresses of one /64 share one bound', async () => {
      for (const ip of addressesIn('20', 3)) expect((await client.options(ip)).status).toBe(200);
      const refused = await client.options('2001:db8:20::ffff');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect((await client.options('2001:db8:20:1::1')).status).toBe(200);
    });

    test('failed sign-ins per address: 50 failures spread over one /64 → 429 for all of it', async () => {
      for (const ip of addressesIn('30', 50)) {
        expect((await client.failedPasskey(ip)).status).toBe(401);
      }
      const user = await ctx.createAccount();
      const refused = await client.signIn('2001:db8:30::abc', user.email, PASSWORD);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('900');
      expect((await client.failedPasskey('2001:DB8:30:0:1:2:3:4')).status).toBe(429);
      expect((await client.signIn('2001:db8:30:1::1', user.email, PASSWORD)).status).toBe(200);
    });

    test('failed sign-ins per account: 10 wrong passwords from one /64 lock it for that /64 only', async () => {
      const user = await ctx.createAccount();
      for (const ip of addressesIn('40', 10)) {
        expect((await client.signIn(ip, user.email, 'wrong password')).status).toBe(401);
      }
      expect((await client.signIn('2001:db8:40::99', user.email, PASSWORD)).status).toBe(429);
      expect((await client.signIn('2001:db8:40:1::99', user.email, PASSWORD)).status).toBe(200);
    });

    test('the security log keeps each full address, not the network it is counted by', async () => {
      const user = await ctx.createAccount();
      const written = await ctx.eventsWrittenBy(async () => {
        expect((await client.signIn('2001:db8:50::1', user.email, 'wrong')).status).toBe(401);
        expect((await client.signIn('2001:DB8:50:0::2', user.email, 'wrong')).status).toBe(401);
      });
      expect(written.map((row) => [row.action, row.ip])).toEqual([
        ['sign_in.failed', '2001:db8:50::1'],
        ['sign_in.failed', '2001:db8:50::2'],
      ]);
    });
  });

  /** Failed sign-ins of unknown emails (an anonymous caller's rows) from `ips`: what each wrote. */
  const anonymousFailures = (app: typeof ctx, ips: string[]) =>
    app.eventsWrittenBy(async () => {
      for (const [i, ip] of ips.entries()) {
        const res = await clientsOf(app).signIn(ip, `nobody${i}@x.example`, 'wrong');
        expect(res.status).toBe(401);
      }
    });
  const ROWS = DEFAULT_AUDIT_ROWS_PER_HOUR;

  test('an anonymous caller has its hourly rows per /64 (the rest counted into one), each with its full address', async () => {
    const ips = addressesIn('60', ROWS + 2);
    const written = await anonymousFailures(ctx, [...ips, '2001:db8:60:1::1']);
    expect(written.map((row) => [row.action, row.ip, row.count])).toEqual([
      ...ips
        .slice(0, ROWS)
        .map((_, i) => ['sign_in.failed', `2001:db8:60::${(i + 1).toString(16)}`, 1]),
      ['sign_in.failed', `2001:db8:60::${(ROWS + 1).toString(16)}`, 2],
      ['sign_in.failed', '2001:db8:60:1::1', 1],
    ]);
  });

  test('RATE_LIMIT_IPV6_PREFIX=128: an anonymous caller has its hourly rows per address', async () => {
    const written = await anonymousFailures(full, addressesIn('60', ROWS + 2));
    expect(written.map((row) => [row.ip, row.count])).toEqual(
      Array.from({ length: ROWS + 2 }, (_, i) => [`2001:db8:60::${(i + 1).toString(16)}`, 1]),
    );
  });

  describe('RATE_LIMIT_IPV6_PREFIX=128 counts each address', () => {
    let client: ReturnType<typeof clientsOf>;
    beforeAll(() => {
      client = clientsOf(full);
    });

    test('sign-ups and passkey options: a neighbour in the /64 has a bound of its own', async () => {
      for (let i = 0; i < 3; i++) {
        expect((await client.signUp('2001:db8:1:1::1', `own${i}@x.example`)).status).toBe(202);
      }
      // The same address written otherwise is still the same address.
      expect((await client.signUp('2001:0db8:1:1:0:0:0:1', 'own3@x.example')).status).toBe(429);
      expect((await client.signUp('2001:db8:1:1::2', 'neighbour@x.example')).status).toBe(202);

      for (let i = 0; i < 3; i++) expect((await client.options('2001:db8:2::1')).status).toBe(200);
      expect((await client.options('[2001:DB8:2::1]:443')).status).toBe(429);
      expect((await client.options('2001:db8:2::2')).status).toBe(200);
    });

    test('failed sign-ins: counted per address, per account from each address', async () => {
      const user = await full.createAccount();
      for (let i = 0; i < 10; i++) {
        expect((await client.signIn('2001:db8:3::1', user.email, 'wrong')).status).toBe(401);
      }
      expect((await client.signIn('2001:db8:3::1', user.email, PASSWORD)).status).toBe(429);
      expect((await client.signIn('2001:db8:3::2', user.email, PASSWORD)).status).toBe(200);

      for (let i = 0; i < 50; i++) {
        expect((await client.failedPasskey('2001:db8:4::1')).status).toBe(401);
      }
      expect((await client.failedPasskey('2001:db8:4::1')).status).toBe(429);
      expect((await client.failedPasskey('2001:db8:4::2')).status).toBe(401);
    });
  });
}

for (const under of storesUnderTest()) {
  under.describe('per-address limits and IPv6 networks', () => ipv6LimitTests(() => ({}), under));
}

const skip = redisSkipReason !== undefined;
describe.skipIf(skip)(redisTitle('per-address limits and IPv6 networks, counted in Redis'), () =>
  ipv6LimitTests(skip ? () => ({}) : redisEnv, sqliteUnderTest),
);
