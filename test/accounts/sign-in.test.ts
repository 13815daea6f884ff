import { beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { SIGN_UP_ACCEPTED_MESSAGE } from '@/accounts/messages';
import { SignInResponse, SignUpAccepted } from '@/api/accounts/schemas';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { cookieOf, ORIGIN, PASSWORD } from './support';

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

for (const under of storesUnderTest()) {
  under.describe('sign-up, sign-in, sign-out', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    describe('happy', () => {
      test('sign-up → 202 neutral answer; the customer account is stored with its email lower-case', async () => {
        const res = await ctx.request('POST', '/auth/sign-up', {
          body: { email: '  Mixed.Case@Example.com ', password: 'eight ch' },
        });
        expect(res.status).toBe(202);
        expect(SignUpAccepted.parse(res.body)).toEqual({
          email: 'mixed.case@example.com',
          message: SIGN_UP_ACCEPTED_MESSAGE,
        });
        const stored = await ctx.findUser('mixed.case@example.com');
        expect(stored).toMatchObject({ email: 'mixed.case@example.com', role: 'customer' });
        expect((await ctx.signIn('mixed.case@example.com', 'eight ch')).user.id).toBe(stored!.id);
      });

      test('sign-in → bearer token body and an HttpOnly, SameSite=Lax session cookie', async () => {
        const user = await ctx.signUp();
        const res = await ctx.request('POST', '/auth/sign-in', {
          body: { email: user.email.toUpperCase(), password: PASSWORD },
        });
        expect(res.status).toBe(200);
        const body = SignInResponse.parse(res.body);
        expect(body).toEqual({
          accessToken: body.accessToken,
          tokenType: 'Bearer',
          expiresIn: 3600,
          user,
        });
        expect(res.headers.get('cache-control')).toBe('no-store');
        const cookie = res.headers.get('set-cookie')!;
        expect(cookie).toMatch(
          /^session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/,
        );
        const caller = await ctx.deps.tokens.verify(body.accessToken);
        expect(caller).toMatchObject({ sub: user.id, aud: 'customer' });
      });

      test('the bearer token and the cookie both authenticate', async () => {
        const session = await ctx.newUser();
        const byToken = await ctx.request('GET', '/auth/me', { token: session.token });
        expect(byToken.status).toBe(200);
        expect(byToken.body).toEqual(session.user);
        const byCookie = await ctx.request('GET', '/auth/me', {
          headers: { cookie: session.cookie },
        });
        expect(byCookie.status).toBe(200);
        expect(byCookie.body).toEqual(session.user);
      });

      test('an employee signs in with the employee audience, on cookie too', async () => {
        const employee = await ctx.createAccount('ops@example.com', 'employee');
        const session = await ctx.signIn('ops@example.com');
        expect(session.user).toEqual({
          id: employee.id,
          email: 'ops@example.com',
          role: 'employee',
          emailVerified: true,
        });
        expect(await ctx.deps.tokens.verify(session.token)).toMatchObject({ aud: 'employee' });
        // The cookie carries the role too: an employee-only route accepts it.
        const probeApp = new Elysia()
          .use(ctx.deps.auth)
          .get('/probe', ({ caller }) => caller, { auth: 'employee' });
        const probe = await probeApp.handle(
          new Request('http://localhost/probe', { headers: { cookie: session.cookie } }),
        );
        expect(probe.status).toBe(200);
        expect(await probe.json()).toMatchObject({
          sub: employee.id,
          aud: 'employee',
          via: 'session',
        });
      });

      test('sign-out → 204, clears the cookie, and the old cookie stops working', async () => {
        const session = await ctx.newUser();
        const res = await ctx.browser(session, 'POST', '/auth/sign-out');
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expect(res.headers.get('set-cookie')).toBe(
          'session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
        );
        const after = await ctx.request('GET', '/auth/me', { headers: { cookie: session.cookie } });
        expect(after.status).toBe(401);
        expect(after.body).toEqual(problemOf(401));
      });

      test('sign-out without a session is still 204', async () => {
        const res = await ctx.request('POST', '/auth/sign-out');
        expect(res.status).toBe(204);
      });

      test('a session expires after 7 days', async () => {
        const session = await ctx.newUser();
        ctx.clock.advance(SEVEN_DAYS_MS - 1000);
        expect((await ctx.browser(session, 'GET', '/auth/me')).status).toBe(200);
        ctx.clock.advance(1000);
        expect((await ctx.browser(session, 'GET', '/auth/me')).status).toBe(401);
      });
    });

    describe('error', () => {
      test('bad email and short password → 422 with validationMessages', async () => {
        const res = await ctx.request('POST', '/auth/sign-up', {
          body: { email: 'not-an-email', password: 'seven c' },
        });
        expect(res.status).toBe(422);
        expect(res.body).toEqual(
          problemOf(422, undefined, {
            email: { emailInvalidFormat: 'The input is not a valid email' },
            password: { stringLengthTooShort: 'The input is less than 8 characters long' },
          }),
        );
      });

      test('missing fields and unknown keys → 422', async () => {
        const res = await ctx.request('POST', '/auth/sign-up', { body: { role: 'employee' } });
        expect(res.status).toBe(422);
        expect(res.body).toEqual(
          problemOf(422, undefined, {
            email: { isEmpty: "Value is required and can't be empty" },
            password: { isEmpty: "Value is required and can't be empty" },
            role: { notAllowed: 'The field is not allowed' },
          }),
        );
      });

      test('an email already taken (any case) → the same 202 as a free one; nothing changes', async () => {
        const user = await ctx.createAccount();
        const before = await ctx.findUser(user.email);
        const taken = await ctx.request('POST', '/auth/sign-up', {
          body: { email: user.email.toUpperCase(), password: 'another password' },
        });
        const free = await ctx.request('POST', '/auth/sign-up', {
          body: { email: 'free@example.com', password: 'another password' },
        });
        expect(taken.status).toBe(202);
        expect(free.status).toBe(202);
        expect(taken.headers.get('content-type')).toBe(free.headers.get('content-type'));
        expect(taken.body).toEqual({ email: user.email, message: SIGN_UP_ACCEPTED_MESSAGE });
        expect(free.body).toEqual({ email: 'free@example.com', message: SIGN_UP_ACCEPTED_MESSAGE });
        // The account keeps its password; no second row.
        expect(await ctx.findUser(user.email)).toEqual(before);
        expect(await ctx.usersOf(user.email)).toHaveLength(1);
        expect((await ctx.signIn(user.email, PASSWORD)).user.id).toBe(user.id);
      });

      test('two sign-ups racing for one free email → both 202, one account', async () => {
        const body = { email: 'race@example.com', password: 'race password' };
        const answers = await Promise.all([
          ctx.request('POST', '/auth/sign-up', { body }),
          ctx.request('POST', '/auth/sign-up', { body }),
        ]);
        expect(answers.map((res) => res.status)).toEqual([202, 202]);
        expect(answers[0]!.body).toEqual(answers[1]!.body);
        expect(await ctx.usersOf('race@example.com')).toHaveLength(1);
      });

      test('wrong password and unknown email answer the same 401, without a cookie', async () => {
        const user = await ctx.createAccount();
        const wrong = await ctx.request('POST', '/auth/sign-in', {
          body: { email: user.email, password: 'not the password' },
        });
        const unknown = await ctx.request('POST', '/auth/sign-in', {
          body: { email: 'nobody@example.com', password: PASSWORD },
        });
        for (const res of [wrong, unknown]) {
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
          expect(res.headers.get('set-cookie')).toBeNull();
        }
      });

      test('a sign-in body that is not an object → 400, a missing field → 422', async () => {
        const raw = await ctx.request('POST', '/auth/sign-in', {
          raw: '[]',
          headers: { 'content-type': 'application/json' },
        });
        expect(raw.status).toBe(400);
        const missing = await ctx.request('POST', '/auth/sign-in', { body: { email: 'a@b.c' } });
        expect(missing.status).toBe(422);
        expect(missing.body).toEqual(
          problemOf(422, undefined, {
            password: { isEmpty: "Value is required and can't be empty" },
          }),
        );
      });
    });

    describe('auth', () => {
      test('GET /auth/me without a credential → 401; with a bad cookie → 401', async () => {
        expect((await ctx.request('GET', '/auth/me')).status).toBe(401);
        const bad = await ctx.request('GET', '/auth/me', { headers: { cookie: 'session=nope' } });
        expect(bad.status).toBe(401);
        const malformed = await ctx.request('GET', '/auth/me', {
          headers: { cookie: 'session=%zz' },
        });
        expect(malformed.status).toBe(401);
      });

      test('a cookie-authenticated POST without our Origin → 403', async () => {
        const session = await ctx.newUser();
        const path = '/auth/passkey/register/options';
        const none = await ctx.request('POST', path, { headers: { cookie: session.cookie } });
        expect(none.status).toBe(403);
        expect(none.body).toEqual(problemOf(403));
        const foreign = await ctx.request('POST', path, {
          headers: { cookie: session.cookie, origin: 'http://localhost:4000' },
        });
        expect(foreign.status).toBe(403);
        const ours = await ctx.browser(session, 'POST', path);
        expect(ours.status).toBe(200);
      });

      test('a cookie-authenticated DELETE and PATCH without Origin → 403', async () => {
        const session = await ctx.newUser();
        for (const method of ['PATCH', 'DELETE']) {
          const res = await ctx.request(method, '/auth/passkeys/some-id', {
            body: method === 'PATCH' ? { name: 'x' } : undefined,
            headers: { cookie: session.cookie },
          });
          expect(res.status).toBe(403);
        }
      });

      test('sign-out with a cookie from another origin → 403 and the session lives on', async () => {
        const session = await ctx.newUser();
        const res = await ctx.request('POST', '/auth/sign-out', {
          headers: { cookie: session.cookie, origin: 'https://evil.example' },
        });
        expect(res.status).toBe(403);
        expect((await ctx.browser(session, 'GET', '/auth/me')).status).toBe(200);
      });

      test('bearer requests need no Origin; GET with a cookie needs none either', async () => {
        const session = await ctx.newUser();
        const bearer = await ctx.request('POST', '/auth/passkey/authenticate/options', {
          token: session.token,
          body: {},
        });
        expect(bearer.status).toBe(200);
        const get = await ctx.request('GET', '/auth/passkeys', {
          headers: { cookie: session.cookie },
        });
        expect(get.status).toBe(200);
      });
    });
  });

  under.describe('session cookie over HTTPS', () => {
    test('Secure when PUBLIC_ORIGIN is https', async () => {
      const ctx = await under.app({ env: { PUBLIC_ORIGIN: 'https://listings.example' } });
      const user = await ctx.createAccount();
      const res = await ctx.request('POST', '/auth/sign-in', {
        body: { email: user.email, password: PASSWORD },
      });
      expect(res.headers.get('set-cookie')).toEndWith('; Secure');
      const session = { user, token: '', cookie: cookieOf(res.headers.get('set-cookie')) };
      const out = await ctx.request('POST', '/auth/sign-out', {
        headers: { cookie: session.cookie, origin: 'https://listings.example' },
      });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toEndWith('; Secure');
      expect(ORIGIN).toStartWith('http:');
    });
  });
}
