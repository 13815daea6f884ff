import { beforeAll, describe, expect, test } from 'bun:test';
import { PasskeyList, PasskeySummary, SignInResponse } from '@/api/accounts/schemas';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { cookieOf, ORIGIN } from './support';

const FIVE_MINUTES_MS = 5 * 60 * 1000;

for (const under of storesUnderTest()) {
  under.describe('passkeys (registration, sign-in, management)', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    describe('happy', () => {
      test('registration options: discoverable, UV preferred, attestation none', async () => {
        const session = await ctx.newUser();
        const options = await ctx.registrationOptions(session);
        expect(options).toMatchObject({
          rp: { id: 'localhost', name: 'Listings Service' },
          user: {
            id: Buffer.from(session.user.id).toString('base64url'),
            name: session.user.email,
            displayName: session.user.email,
          },
          timeout: FIVE_MINUTES_MS,
          excludeCredentials: [],
          authenticatorSelection: {
            residentKey: 'required',
            requireResidentKey: true,
            userVerification: 'preferred',
          },
          attestation: 'none',
        });
        // 42 bytes: a random nonce, its expiry, kind and binding, and their MAC.
        expect(options.challenge).toMatch(/^[\w-]{56}$/);
      });

      test('register → 201 summary; list shows it', async () => {
        const session = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();
        const res = await ctx.register(
          session,
          authenticator,
          { backupEligible: true, backedUp: true },
          'Laptop',
        );
        expect(res.status).toBe(201);
        const summary = PasskeySummary.parse(res.body);
        expect(summary).toEqual({
          id: summary.id,
          credentialId: authenticator.credentials().at(-1)!.id,
          name: 'Laptop',
          createdAt: new Date(ctx.clock()).toISOString(),
          lastUsedAt: null,
          backedUp: true,
          deviceType: 'multiDevice',
          transports: ['internal', 'hybrid'],
          provider: 'Passkey',
          aaguid: '00000000-0000-0000-0000-000000000000',
        });
        const list = await ctx.browser(session, 'GET', '/auth/passkeys');
        expect(list.status).toBe(200);
        expect(PasskeyList.parse(list.body)).toEqual({ passkeys: [summary] });
      });

      test('a passkey without a name is named after its provider, numbered from the second', async () => {
        const session = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();
        const apple = { aaguid: 'FBFC3007-154E-4ECC-8C0B-6E020557D7BD' };
        expect((await ctx.register(session, authenticator, apple)).body).toMatchObject({
          name: 'Apple Passwords',
          provider: 'Apple Passwords',
          aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
          deviceType: 'singleDevice',
          backedUp: false,
        });
        expect((await ctx.register(session, authenticator, apple)).body).toMatchObject({
          name: 'Apple Passwords 2',
        });
        const unknown = { aaguid: '01234567-89ab-cdef-0123-456789abcdef' };
        for (const [overrides, name] of [
          [unknown, 'Passkey'],
          [{}, 'Passkey 2'],
          [{}, 'Passkey 3'],
        ] as const) {
          expect((await ctx.register(session, authenticator, overrides)).body).toMatchObject({
            name,
            provider: 'Passkey',
          });
        }
        const google = { aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' };
        const named = await ctx.register(session, authenticator, google, 'My phone');
        expect(named.body).toMatchObject({ name: 'My phone', provider: 'Google Password Manager' });
      });

      test('authenticate (usernameless) → token body, session cookie, lastUsedAt and counter', async () => {
        const session = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();
        const registered = await ctx.register(session, authenticator);
        const options = await ctx.authenticationOptions();
        expect(options).toMatchObject({
          rpId: 'localhost',
          allowCredentials: [],
          userVerification: 'required',
          timeout: FIVE_MINUTES_MS,
        });

        ctx.clock.advance(60_000);
        const res = await ctx.authenticate(authenticator);
        expect(res.status).toBe(200);
        const body = SignInResponse.parse(res.body);
        expect(body.user).toEqual(session.user);
        expect(body.tokenType).toBe('Bearer');
        expect(await ctx.deps.tokens.verify(body.accessToken)).toMatchObject({
          sub: session.user.id,
          aud: 'customer',
        });
        const cookie = res.headers.get('set-cookie')!;
        expect(cookie).toMatch(
          /^session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/,
        );
        const me = await ctx.request('GET', '/auth/me', { headers: { cookie: cookieOf(cookie) } });
        expect(me.body).toEqual(session.user);

        const list = await ctx.browser<{ passkeys: { lastUsedAt: string }[] }>(
          session,
          'GET',
          '/auth/passkeys',
        );
        expect(list.body.passkeys[0]).toMatchObject({
          id: (registered.body as { id: string }).id,
          lastUsedAt: new Date(ctx.clock()).toISOString(),
        });
        expect(authenticator.credentials()[0]!.signCount).toBe(1);
        expect((await ctx.authenticate(authenticator)).status).toBe(200);
      });

      test('authenticate options with an email: no credential list, a challenge only that account can answer', async () => {
        const { session, authenticator } = await ctx.userWithPasskey();
        const other = await ctx.userWithPasskey();
        const options = await ctx.authenticationOptions(session.user.email.toUpperCase());
        expect(options.allowCredentials).toEqual([]);
        // Another account's passkey signing this challenge is refused, and spends nothing.
        const foreign = await other.authenticator.getAssertion(options);
        const refused = await ctx.request('POST', '/auth/passkey/authenticate', {
          body: { response: foreign },
        });
        expect([refused.status, refused.body]).toEqual([401, problemOf(401)]);
        const res = await ctx.authenticate(authenticator, {}, session.user.email);
        expect(res.status).toBe(200);
      });

      test('an unknown email gets options like any other: an empty credential list', async () => {
        const options = await ctx.authenticationOptions('nobody@example.com');
        expect(options.allowCredentials).toEqual([]);
        expect(options.challenge).toMatch(/^[\w-]{56}$/);
      });

      test("excludeCredentials lists the user's existing passkeys", async () => {
        const { session, authenticator } = await ctx.userWithPasskey();
        await ctx.register(session, authenticator);
        const options = await ctx.registrationOptions(session);
        expect(options.excludeCredentials).toEqual(
          authenticator.credentials().map((credential) => ({
            id: credential.id,
            type: 'public-key',
            transports: ['internal', 'hybrid'],
          })),
        );
      });

      test('rename → 200 summary; delete → 204 and the passkey no longer signs in', async () => {
        const session = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();
        const { body } = await ctx.register(session, authenticator);
        const renamed = await ctx.browser(session, 'PATCH', `/auth/passkeys/${body.id}`, {
          body: { name: '  Phone  ' },
        });
        expect(renamed.status).toBe(200);
        expect(PasskeySummary.parse(renamed.body)).toEqual({ ...body, name: 'Phone' });

        const deleted = await ctx.browser(session, 'DELETE', `/auth/passkeys/${body.id}`);
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');
        expect((await ctx.browser(session, 'GET', '/auth/passkeys')).body).toEqual({
          passkeys: [],
        });
        expect((await ctx.authenticate(authenticator)).status).toBe(401);
      });

      test('lost device: sign in by password, delete the old passkey, add a new one', async () => {
        const user = await ctx.createAccount();
        const first = await ctx.signIn(user.email);
        const lostPhone = ctx.newAuthenticator();
        const { body: old } = await ctx.register(first, lostPhone, {}, 'Old phone');

        const again = await ctx.signIn(user.email);
        expect((await ctx.browser(again, 'DELETE', `/auth/passkeys/${old.id}`)).status).toBe(204);
        const newPhone = ctx.newAuthenticator();
        expect((await ctx.register(again, newPhone, {}, 'New phone')).status).toBe(201);

        expect((await ctx.authenticate(lostPhone)).status).toBe(401);
        const res = await ctx.authenticate(newPhone);
        expect(res.status).toBe(200);
        expect((res.body as { user: unknown }).user).toEqual(user);
      });

      test('a signed-in user can sign in with another passkey and delete the first', async () => {
        const session = await ctx.newUser();
        const laptop = ctx.newAuthenticator();
        const phone = ctx.newAuthenticator();
        const { body: laptopKey } = await ctx.register(session, laptop);
        await ctx.register(session, phone);
        const viaPhone = await ctx.authenticate(phone);
        const phoneSession = {
          ...session,
          cookie: cookieOf(viaPhone.headers.get('set-cookie')),
        };
        const res = await ctx.browser(phoneSession, 'DELETE', `/auth/passkeys/${laptopKey.id}`);
        expect(res.status).toBe(204);
      });
    });

    describe('error', () => {
      test('a replayed assertion → 401', async () => {
        const { authenticator } = await ctx.userWithPasskey();
        const first = await ctx.authenticate(authenticator);
        expect(first.status).toBe(200);
        const replay = await ctx.request('POST', '/auth/passkey/authenticate', {
          body: { response: first.response },
        });
        expect(replay.status).toBe(401);
        expect(replay.body).toEqual(problemOf(401));
        expect(replay.headers.get('set-cookie')).toBeNull();
      });

      test('an assertion from the wrong origin → 401', async () => {
        const { authenticator } = await ctx.userWithPasskey();
        const res = await ctx.authenticate(authenticator, { origin: 'http://evil.test:3000' });
        expect(res.status).toBe(401);
        expect(res.body as unknown).toEqual(problemOf(401));
      });

      test('an assertion for the wrong RP ID → 401', async () => {
        const { authenticator } = await ctx.userWithPasskey();
        const res = await ctx.authenticate(authenticator, { rpId: 'evil.test' });
        expect(res.status).toBe(401);
      });

      test('an authentication challenge older than 5 minutes → 401', async () => {
        const { authenticator } = await ctx.userWithPasskey();
        const options = await ctx.authenticationOptions();
        const response = await authenticator.getAssertion(options);
        ctx.clock.advance(FIVE_MINUTES_MS);
        const res = await ctx.request('POST', '/auth/passkey/authenticate', { body: { response } });
        expect(res.status).toBe(401);
      });

      test('a challenge just inside 5 minutes is accepted', async () => {
        const { authenticator } = await ctx.userWithPasskey();
        const options = await ctx.authenticationOptions();
        const response = await authenticator.getAssertion(options);
        ctx.clock.advance(FIVE_MINUTES_MS - 1);
        const res = await ctx.request('POST', '/auth/passkey/authenticate', { body: { response } });
        expect(res.status).toBe(200);
      });

      test('a sign counter that went backwards → 401 (cloned authenticator)', async () => {
        const { authenticator } = await ctx.userWithPasskey();
        expect((await ctx.authenticate(authenticator, { signCount: 5 })).status).toBe(200);
        expect((await ctx.authenticate(authenticator, { signCount: 3 })).status).toBe(401);
        expect((await ctx.authenticate(authenticator, { signCount: 5 })).status).toBe(401);
        expect((await ctx.authenticate(authenticator, { signCount: 6 })).status).toBe(200);
      });

      test('an assertion for a challenge scoped to another account → 401', async () => {
        const alice = await ctx.newUser();
        const bob = await ctx.newUser();
        const aliceKey = ctx.newAuthenticator();
        await ctx.register(alice, aliceKey);
        await ctx.register(bob, ctx.newAuthenticator());
        const options = await ctx.authenticationOptions(bob.user.email);
        const response = await aliceKey.getAssertion({ ...options, allowCredentials: [] });
        const res = await ctx.request('POST', '/auth/passkey/authenticate', { body: { response } });
        expect(res.status).toBe(401);
      });

      test('an unknown credential, a forged user handle or garbage → 401', async () => {
        const session = await ctx.newUser();
        const registered = ctx.newAuthenticator();
        await ctx.register(session, registered);
        // A credential the server never saw.
        const stranger = ctx.newAuthenticator();
        await stranger.createCredential(await ctx.registrationOptions(session));
        expect((await ctx.authenticate(stranger)).status).toBe(401);

        const options = await ctx.authenticationOptions();
        const response = await registered.getAssertion(options);
        response.response.userHandle = Buffer.from('someone-else').toString('base64url');
        const forged = await ctx.request('POST', '/auth/passkey/authenticate', {
          body: { response },
        });
        expect(forged.status).toBe(401);

        const garbage = await ctx.request('POST', '/auth/passkey/authenticate', {
          body: {
            response: {
              id: 'abc',
              rawId: 'abc',
              type: 'public-key',
              response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
              clientExtensionResults: {},
            },
          },
        });
        expect(garbage.status).toBe(401);
      });

      test('an authentication body of the wrong shape → 422', async () => {
        const res = await ctx.request('POST', '/auth/passkey/authenticate', {
          body: { response: { id: 'not base64url!' } },
        });
        expect(res.status).toBe(422);
        expect((res.body as { validationMessages: object }).validationMessages).toMatchObject({
          response: { id: { base64urlInvalidFormat: 'The input is not a valid base64url' } },
        });
      });

      test('registration from the wrong origin → 400', async () => {
        const session = await ctx.newUser();
        const res = await ctx.register(session, ctx.newAuthenticator(), {
          origin: 'http://evil.test:3000',
        });
        expect(res.status).toBe(400);
        expect(res.body as unknown).toEqual(problemOf(400));
      });

      test('registration for the wrong RP ID → 400', async () => {
        const session = await ctx.newUser();
        const res = await ctx.register(session, ctx.newAuthenticator(), { rpId: 'evil.test' });
        expect(res.status).toBe(400);
      });

      test('registration with an expired, used or unknown challenge → 400', async () => {
        const session = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();

        const expiredOptions = await ctx.registrationOptions(session);
        const expired = await authenticator.createCredential(expiredOptions);
        ctx.clock.advance(FIVE_MINUTES_MS);
        const late = await ctx.browser(session, 'POST', '/auth/passkey/register', {
          body: { response: expired },
        });
        expect(late.status).toBe(400);

        const options = await ctx.registrationOptions(session);
        const response = await authenticator.createCredential(options);
        const ok = await ctx.browser(session, 'POST', '/auth/passkey/register', {
          body: { response },
        });
        expect(ok.status).toBe(201);
        const again = await ctx.browser(session, 'POST', '/auth/passkey/register', {
          body: { response },
        });
        expect(again.status).toBe(400);

        const made = await authenticator.createCredential({ ...options, challenge: 'bm9wZQ' });
        const unknown = await ctx.browser(session, 'POST', '/auth/passkey/register', {
          body: { response: made },
        });
        expect(unknown.status).toBe(400);
      });

      test("another user's registration challenge → 400", async () => {
        const alice = await ctx.newUser();
        const bob = await ctx.newUser();
        const options = await ctx.registrationOptions(alice);
        const response = await ctx.newAuthenticator().createCredential(options);
        const res = await ctx.browser(bob, 'POST', '/auth/passkey/register', {
          body: { response },
        });
        expect(res.status).toBe(400);
        // Bob's attempt did not use up Alice's challenge.
        const mine = await ctx.browser(alice, 'POST', '/auth/passkey/register', {
          body: { response },
        });
        expect(mine.status).toBe(201);
      });

      test('a credential already registered → 409', async () => {
        const alice = await ctx.newUser();
        const bob = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();
        const options = await ctx.registrationOptions(alice);
        const original = await authenticator.createCredential(options);
        expect(
          (
            await ctx.browser(alice, 'POST', '/auth/passkey/register', {
              body: { response: original },
            })
          ).status,
        ).toBe(201);
        // "none" attestation signs nothing but clientDataJSON's challenge: the same
        // credential can be presented again under a fresh challenge.
        const fresh = await authenticator.createCredential(await ctx.registrationOptions(bob));
        const duplicate = {
          ...original,
          response: { ...original.response, clientDataJSON: fresh.response.clientDataJSON },
        };
        const res = await ctx.browser(bob, 'POST', '/auth/passkey/register', {
          body: { response: duplicate },
        });
        expect(res.status).toBe(409);
        expect(res.body).toEqual(problemOf(409));
      });

      test('a name over 64 characters → 422', async () => {
        const session = await ctx.newUser();
        const { body } = await ctx.register(session, ctx.newAuthenticator());
        const res = await ctx.browser(session, 'PATCH', `/auth/passkeys/${body.id}`, {
          body: { name: 'x'.repeat(65) },
        });
        expect(res.status).toBe(422);
        expect(res.body).toEqual(
          problemOf(422, undefined, {
            name: { stringLengthTooLong: 'The input is more than 64 characters long' },
          }),
        );
        const blank = await ctx.browser(session, 'PATCH', `/auth/passkeys/${body.id}`, {
          body: { name: '   ' },
        });
        expect(blank.status).toBe(422);
      });
    });

    describe('auth', () => {
      test('registration and management need a signed-in user → 401', async () => {
        const session = await ctx.newUser();
        const { body: passkey } = await ctx.register(session, ctx.newAuthenticator());
        const response = await ctx
          .newAuthenticator()
          .createCredential(await ctx.registrationOptions(session));
        // Bodies are well-formed: the route's validation runs before its auth check.
        const calls: [string, string, unknown][] = [
          ['POST', '/auth/passkey/register/options', undefined],
          ['POST', '/auth/passkey/register', { response }],
          ['GET', '/auth/passkeys', undefined],
          ['PATCH', `/auth/passkeys/${passkey.id}`, { name: 'x' }],
          ['DELETE', `/auth/passkeys/${passkey.id}`, undefined],
        ];
        for (const [method, path, body] of calls) {
          const res = await ctx.request(method, path, { body });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        }
      });

      test("another user's passkey: rename and delete → 404, and it survives", async () => {
        const alice = await ctx.newUser();
        const bob = await ctx.newUser();
        const { body } = await ctx.register(alice, ctx.newAuthenticator(), {}, 'Alice key');
        const rename = await ctx.browser(bob, 'PATCH', `/auth/passkeys/${body.id}`, {
          body: { name: 'Mine now' },
        });
        expect(rename.status).toBe(404);
        expect(rename.body).toEqual(problemOf(404));
        const remove = await ctx.browser(bob, 'DELETE', `/auth/passkeys/${body.id}`);
        expect(remove.status).toBe(404);
        expect((await ctx.browser(bob, 'GET', '/auth/passkeys')).body).toEqual({ passkeys: [] });
        const list = await ctx.browser(alice, 'GET', '/auth/passkeys');
        expect(list.body).toEqual({ passkeys: [body] });
      });

      test('a token minted for a user without an account cannot register → 403', async () => {
        const token = await ctx.tokenFor('no-such-user');
        const res = await ctx.request('POST', '/auth/passkey/register/options', { token });
        expect(res.status).toBe(403);
      });
    });

    describe('transport', () => {
      const call = (url: string, headers: Record<string, string> = {}) =>
        ctx.fetch(
          new Request(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: '{}',
          }),
        );

      test('plain HTTP off loopback → 403 on every passkey route', async () => {
        const res = await call('http://listings.example/auth/passkey/authenticate/options');
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual(problemOf(403));
        const list = await ctx.fetch(new Request('http://10.0.0.5/auth/passkeys'));
        expect(list.status).toBe(403);
      });

      test('only passkey routes are HTTPS-only: password sign-in over plain HTTP still answers', async () => {
        const res = await ctx.fetch(
          new Request('http://listings.example/auth/sign-in', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'nobody@example.com', password: 'whatever' }),
          }),
        );
        expect(res.status).toBe(401);
      });

      test('plain HTTP to loopback from a non-loopback page → 403', async () => {
        const res = await call('http://localhost/auth/passkey/authenticate/options', {
          origin: 'http://listings.example',
        });
        expect(res.status).toBe(403);
      });

      test('loopback over HTTP, and HTTPS anywhere, are accepted', async () => {
        for (const url of [
          'http://127.0.0.1:3000/auth/passkey/authenticate/options',
          'http://[::1]:3000/auth/passkey/authenticate/options',
          'https://listings.example/auth/passkey/authenticate/options',
        ]) {
          expect(
            (await call(url, { origin: ORIGIN.replace('localhost', '127.0.0.1') })).status,
          ).not.toBe(403);
        }
        expect(
          (await call('https://listings.example/auth/passkey/authenticate/options')).status,
        ).toBe(200);
      });

      test('X-Forwarded-Proto counts only with TRUST_PROXY', async () => {
        const url = 'http://listings.internal/auth/passkey/authenticate/options';
        const headers = { 'x-forwarded-proto': 'https' };
        expect((await call(url, headers)).status).toBe(403);
        const trusting = await under.app({ env: { TRUST_PROXY: 'true' } });
        const res = await trusting.fetch(
          new Request(url, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{}',
          }),
        );
        expect(res.status).toBe(200);
      });

      test('X-Forwarded-Proto from a peer outside TRUSTED_PROXIES is not believed', async () => {
        const url = 'http://listings.internal/auth/passkey/authenticate/options';
        // The in-process peer is loopback, which this list leaves out.
        const strict = await under.app({
          env: { TRUST_PROXY: 'true', TRUSTED_PROXIES: '10.0.0.0/8' },
        });
        const res = await strict.fetch(
          new Request(url, {
            method: 'POST',
            headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/json' },
            body: '{}',
          }),
        );
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual(problemOf(403));
      });
    });
  });
}
