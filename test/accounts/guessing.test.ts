import { beforeAll, describe, expect, test } from 'bun:test';
import { problemOf } from '../support/harness';
import { redisEnv, redisSkipReason, redisTitle } from '../support/redis';
import {
  type AccountsTestApp,
  postgresUnderTest,
  type StoreUnderTest,
  sqliteUnderTest,
} from './stores';
import { PASSWORD, UNKNOWN_PASSKEY_ASSERTION } from './support';

const MINUTE_MS = 60_000;

/**
 * The same rules whichever ledger counts the failures (`ledgerEnv`: none
 * for the account store's table, or a Redis).
 */
function guessingTests(ledgerEnv: Record<string, string>, under: StoreUnderTest) {
  let ctx: AccountsTestApp;
  beforeAll(async () => {
    ctx = await under.app({ env: { TRUST_PROXY: 'true', ...ledgerEnv } });
  });
  let ipCounter = 0;
  const newIp = () => `203.0.113.${++ipCounter}`;

  const signIn = (email: string, password: string, ip = newIp()) =>
    ctx.request('POST', '/auth/sign-in', {
      body: { email, password },
      headers: { 'x-forwarded-for': ip },
    });

  const failedPasskey = (ip: string) =>
    ctx.request('POST', '/auth/passkey/authenticate', {
      headers: { 'x-forwarded-for': ip },
      body: { response: UNKNOWN_PASSKEY_ASSERTION },
    });

  async function failTimes(email: string, times: number, ip: string) {
    for (let i = 0; i < times; i++) {
      expect((await signIn(email, 'wrong password', ip)).status).toBe(401);
    }
  }

  describe('per account and address', () => {
    test('10 failures → 429 with Retry-After for that address, even for the right password; then it lifts', async () => {
      const user = await ctx.createAccount();
      const ip = newIp();
      await failTimes(user.email, 10, ip);
      const blocked = await signIn(user.email, PASSWORD, ip);
      expect(blocked.status).toBe(429);
      expect(blocked.body).toEqual(problemOf(429));
      expect(blocked.headers.get('retry-after')).toBe('900');
      expect(blocked.headers.get('set-cookie')).toBeNull();

      // Refused attempts do not count: the wait is not extended.
      ctx.clock.advance(5 * MINUTE_MS);
      const later = await signIn(user.email.toUpperCase(), PASSWORD, ip);
      expect(later.status).toBe(429);
      expect(later.headers.get('retry-after')).toBe('600');

      ctx.clock.advance(10 * MINUTE_MS);
      expect((await signIn(user.email, PASSWORD, ip)).status).toBe(200);
    });

    test("a stranger's failures do not lock the owner out from another address", async () => {
      const user = await ctx.createAccount();
      const stranger = newIp();
      await failTimes(user.email, 10, stranger);
      const refused = await signIn(user.email, PASSWORD, stranger);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(problemOf(429));
      const owner = await signIn(user.email, PASSWORD, newIp());
      expect(owner.status).toBe(200);
      // The owner's success clears only the owner's own failures: the stranger stays refused.
      expect((await signIn(user.email, PASSWORD, stranger)).status).toBe(429);
    });

    test('failures spread over addresses do not add up for the account', async () => {
      const user = await ctx.createAccount();
      for (let i = 0; i < 12; i++) {
        expect((await signIn(user.email, 'wrong password', newIp())).status).toBe(401);
      }
      expect((await signIn(user.email, PASSWORD, newIp())).status).toBe(200);
    });

    test('an unknown email is limited the same way (no hint it does not exist)', async () => {
      const ip = newIp();
      await failTimes('nobody@example.com', 10, ip);
      const res = await signIn('nobody@example.com', PASSWORD, ip);
      expect(res.status).toBe(429);
      expect(res.body).toEqual(problemOf(429));
      expect(res.headers.get('retry-after')).toBe('900');
    });

    test('a successful sign-in clears the account failures', async () => {
      const user = await ctx.createAccount();
      const ip = newIp();
      await failTimes(user.email, 9, ip);
      expect((await signIn(user.email, PASSWORD, ip)).status).toBe(200);
      await failTimes(user.email, 9, ip);
      expect((await signIn(user.email, PASSWORD, ip)).status).toBe(200);
    });

    test('parallel guesses cannot slip past the limit', async () => {
      const user = await ctx.createAccount();
      const ip = newIp();
      const answers = await Promise.all(
        Array.from({ length: 15 }, () => signIn(user.email, 'wrong password', ip)),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    });

    test('a locked account can still sign in with a passkey', async () => {
      const session = await ctx.newUser();
      const authenticator = ctx.newAuthenticator();
      await ctx.register(session, authenticator);
      const ip = newIp();
      await failTimes(session.user.email, 10, ip);
      expect((await signIn(session.user.email, PASSWORD, ip)).status).toBe(429);
      expect((await ctx.authenticate(authenticator)).status).toBe(200);
    });
  });

  describe('per IP', () => {
    test('50 failed passkey verifications → sign-in and passkeys answer 429 for that IP only', async () => {
      const ip = newIp();
      for (let i = 0; i < 50; i++) expect((await failedPasskey(ip)).status).toBe(401);
      const passkey = await failedPasskey(ip);
      expect(passkey.status).toBe(429);
      expect(passkey.body).toEqual(problemOf(429));
      expect(passkey.headers.get('retry-after')).toBe('900');

      const user = await ctx.createAccount();
      const password = await signIn(user.email, PASSWORD, ip);
      expect(password.status).toBe(429);
      expect((await signIn(user.email, PASSWORD, newIp())).status).toBe(200);

      ctx.clock.advance(15 * MINUTE_MS);
      expect((await signIn(user.email, PASSWORD, ip)).status).toBe(200);
    });

    test('failed sign-ins and passkey verifications add up per IP', async () => {
      const ip = newIp();
      const user = await ctx.createAccount();
      for (let i = 0; i < 45; i++) expect((await failedPasskey(ip)).status).toBe(401);
      for (let i = 0; i < 5; i++) {
        expect((await signIn(user.email, 'wrong password', ip)).status).toBe(401);
      }
      expect((await signIn(user.email, PASSWORD, ip)).status).toBe(429);
    });

    test('successful passkey sign-ins are not failures', async () => {
      const ip = newIp();
      const session = await ctx.newUser();
      const authenticator = ctx.newAuthenticator();
      await ctx.register(session, authenticator);
      for (let i = 0; i < 49; i++) expect((await failedPasskey(ip)).status).toBe(401);
      for (let i = 0; i < 3; i++) {
        const options = await ctx.authenticationOptions();
        const response = await authenticator.getAssertion(options);
        const res = await ctx.request('POST', '/auth/passkey/authenticate', {
          headers: { 'x-forwarded-for': ip },
          body: { response },
        });
        expect(res.status).toBe(200);
      }
    });
  });
}

describe('guessing protection', () => {
  describe('failures in SQLite', () => guessingTests({}, sqliteUnderTest));
  const postgres = postgresUnderTest();
  postgres.describe('failures in the account store', () => guessingTests({}, postgres));
  const skip = redisSkipReason !== undefined;
  describe.skipIf(skip)(redisTitle('failures in Redis'), () =>
    guessingTests(skip ? {} : redisEnv(), sqliteUnderTest),
  );
});
