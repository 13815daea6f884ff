import { describe, expect, test } from 'bun:test';
import { problemOf } from '../support/harness';
import { accountsSetup, PASSWORD } from './support';

const MINUTE_MS = 60_000;

describe('guessing protection', () => {
  const ctx = accountsSetup({ TRUST_PROXY: 'true' });
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
      body: {
        response: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
          clientExtensionResults: {},
        },
      },
    });

  async function failTimes(email: string, times: number) {
    for (let i = 0; i < times; i++) {
      // A new address each time: only the per-account counter can add up.
      expect((await signIn(email, 'wrong password')).status).toBe(401);
    }
  }

  describe('per account', () => {
    test('10 failures → 429 with Retry-After, even for the right password; then it lifts', async () => {
      const user = await ctx.createAccount();
      await failTimes(user.email, 10);
      const blocked = await signIn(user.email, PASSWORD);
      expect(blocked.status).toBe(429);
      expect(blocked.body).toEqual(problemOf(429));
      expect(blocked.headers.get('retry-after')).toBe('900');
      expect(blocked.headers.get('set-cookie')).toBeNull();

      // Refused attempts do not count: the wait is not extended.
      ctx.clock.advance(5 * MINUTE_MS);
      const later = await signIn(user.email.toUpperCase(), PASSWORD);
      expect(later.status).toBe(429);
      expect(later.headers.get('retry-after')).toBe('600');

      ctx.clock.advance(10 * MINUTE_MS);
      expect((await signIn(user.email, PASSWORD)).status).toBe(200);
    });

    test('an unknown email is limited the same way (no hint it does not exist)', async () => {
      await failTimes('nobody@example.com', 10);
      const res = await signIn('nobody@example.com', PASSWORD);
      expect(res.status).toBe(429);
      expect(res.body).toEqual(problemOf(429));
      expect(res.headers.get('retry-after')).toBe('900');
    });

    test('a successful sign-in clears the account failures', async () => {
      const user = await ctx.createAccount();
      await failTimes(user.email, 9);
      expect((await signIn(user.email, PASSWORD)).status).toBe(200);
      await failTimes(user.email, 9);
      expect((await signIn(user.email, PASSWORD)).status).toBe(200);
    });

    test('parallel guesses cannot slip past the limit', async () => {
      const user = await ctx.createAccount();
      const answers = await Promise.all(
        Array.from({ length: 15 }, () => signIn(user.email, 'wrong password')),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    });

    test('a locked account can still sign in with a passkey', async () => {
      const session = await ctx.newUser();
      const authenticator = ctx.newAuthenticator();
      await ctx.register(session, authenticator);
      await failTimes(session.user.email, 10);
      expect((await signIn(session.user.email, PASSWORD)).status).toBe(429);
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
});
