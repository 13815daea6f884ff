import { beforeAll, expect, test } from 'bun:test';
import { REAUTHENTICATION_DETAIL } from '@/accounts/messages';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { cookieOf, ORIGIN } from './support';

const MINUTE_MS = 60_000;

for (const under of storesUnderTest()) {
  under.describe('passkey options per address', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { PASSKEY_OPTIONS_PER_IP_PER_MINUTE: '3', TRUST_PROXY: 'true' },
      });
    });
    const options = (ip: string, body: unknown = {}) =>
      ctx.request('POST', '/auth/passkey/authenticate/options', {
        body,
        headers: { 'x-forwarded-for': ip },
      });

    test('past the limit → 429 with Retry-After, for that address only; registration options share it', async () => {
      const session = await ctx.newUser();
      const ip = '198.51.100.7';
      expect((await options(ip)).status).toBe(200);
      expect((await options(ip, { email: 'someone@example.com' })).status).toBe(200);
      const registration = await ctx.browser(session, 'POST', '/auth/passkey/register/options', {
        headers: { 'x-forwarded-for': ip },
      });
      expect(registration.status).toBe(200);
      ctx.clock.advance(20_000);
      for (const res of [
        await options(ip),
        await ctx.browser(session, 'POST', '/auth/passkey/register/options', {
          headers: { 'x-forwarded-for': ip },
        }),
      ]) {
        expect(res.status).toBe(429);
        expect(res.body).toEqual(problemOf(429));
        expect(res.headers.get('retry-after')).toBe('40');
      }
      expect((await options('198.51.100.8')).status).toBe(200);
      ctx.clock.advance(40_000);
      expect((await options(ip)).status).toBe(200);
    });
  });

  under.describe('challenge storage', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('asking for options stores nothing; a verification records its challenge until it expires', async () => {
      const { authenticator } = await ctx.userWithPasskey();
      const before = await ctx.deps.stores.accounts.usedChallengeCount();
      for (let i = 0; i < 200; i++)
        await ctx.authenticationOptions(i % 2 ? undefined : 'x@y.example');
      expect(await ctx.deps.stores.accounts.usedChallengeCount()).toBe(before);

      const signedIn = await ctx.authenticate(authenticator);
      expect(signedIn.status).toBe(200);
      expect(await ctx.deps.stores.accounts.usedChallengeCount()).toBe(before + 1);
      // The replay is refused by the used set...
      const replay = await ctx.request('POST', '/auth/passkey/authenticate', {
        body: { response: signedIn.response },
      });
      expect(replay.status).toBe(401);
      expect(replay.body).toEqual(problemOf(401));
      // ...and once expired, by the challenge itself; the used set lets it go.
      ctx.clock.advance(5 * MINUTE_MS);
      await ctx.authenticate(authenticator);
      expect(await ctx.deps.stores.accounts.usedChallengeCount()).toBe(1);
    });

    test('a challenge altered by one character → 401', async () => {
      const { authenticator } = await ctx.userWithPasskey();
      const options = await ctx.authenticationOptions();
      const last = options.challenge.at(-1) === 'A' ? 'B' : 'A';
      const forged = { ...options, challenge: `${options.challenge.slice(0, -1)}${last}` };
      const response = await authenticator.getAssertion(forged);
      const res = await ctx.request('POST', '/auth/passkey/authenticate', { body: { response } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(problemOf(401));
    });
  });

  under.describe('user verification', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('sign-in options require it; an assertion without the UV flag → 401', async () => {
      const { authenticator } = await ctx.userWithPasskey();
      expect((await ctx.authenticationOptions()).userVerification).toBe('required');
      const unverified = await ctx.authenticate(authenticator, { userVerified: false });
      expect(unverified.status).toBe(401);
      expect(unverified.text).toBe(JSON.stringify(problemOf(401)));
      expect((await ctx.authenticate(authenticator)).status).toBe(200);
    });
  });

  under.describe('adding a passkey needs a recent credential check', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('a bearer token alone → 403 with a detail saying to sign in again', async () => {
      const session = await ctx.newUser();
      for (const path of ['/auth/passkey/register/options', '/auth/passkey/register']) {
        const res = await ctx.request('POST', path, {
          token: session.token,
          body: path.endsWith('options') ? undefined : { response: {} },
        });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(problemOf(403, REAUTHENTICATION_DETAIL));
      }
    });

    test('a session signed in 10 minutes ago still may; one a moment older → 403', async () => {
      const session = await ctx.newUser();
      const authenticator = ctx.newAuthenticator();
      ctx.clock.advance(6 * MINUTE_MS);
      const options = await ctx.registrationOptions(session);
      ctx.clock.advance(4 * MINUTE_MS);
      const response = await authenticator.createCredential(options);
      const inTime = await ctx.browser(session, 'POST', '/auth/passkey/register', {
        body: { response },
      });
      expect(inTime.status).toBe(201);
      ctx.clock.advance(1);
      const late = await ctx.browser(session, 'POST', '/auth/passkey/register/options');
      expect(late.status).toBe(403);
      expect(late.body).toEqual(problemOf(403, REAUTHENTICATION_DETAIL));
    });

    test('signing in again (here with a passkey) makes a session that may add one', async () => {
      const { session, authenticator } = await ctx.userWithPasskey();
      ctx.clock.advance(11 * MINUTE_MS);
      expect((await ctx.browser(session, 'POST', '/auth/passkey/register/options')).status).toBe(
        403,
      );
      const signedIn = await ctx.authenticate(authenticator);
      expect(signedIn.status).toBe(200);
      if (!('accessToken' in signedIn.body)) throw new Error('not signed in');
      const fresh = { ...session, cookie: cookieOf(signedIn.headers.get('set-cookie')) };
      expect((await ctx.register(fresh, ctx.newAuthenticator())).status).toBe(201);
      expect(ORIGIN).toStartWith('http://localhost');
    });
  });
}
