import { beforeAll, describe, expect, test } from 'bun:test';
import { DEFAULT_AUDIT_ROWS_PER_HOUR } from '@/audit/operations';
import { type AccountsTestApp, storesUnderTest } from '../accounts/stores';
import { cookieOf, ORIGIN, PASSWORD } from '../accounts/support';
import { onlyEvent } from './support';

const UA = 'Mozilla/5.0 (test) AuditBrowser/1.0';

for (const under of storesUnderTest()) {
  under.describe('security log: every account action leaves exactly one event', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('sign-up: anonymous actor, the new account as subject, address, user agent and request id', async () => {
      const email = 'new.signup@example.com';
      const written = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('POST', '/auth/sign-up', {
          body: { email, password: PASSWORD },
          headers: { 'user-agent': UA, 'x-request-id': 'req-sign-up-1' },
        });
        expect(res.status).toBe(202);
      });
      const user = await ctx.signIn(email);
      expect(onlyEvent(written)).toMatchObject({
        action: 'sign_up',
        actorId: null,
        subjectId: user.user.id,
        ip: '127.0.0.1',
        userAgent: UA,
        requestId: 'req-sign-up-1',
        details: { role: 'customer' },
      });
      expect(written[0]!.at.getTime()).toBe(ctx.clock());
    });

    test('a sign-up for a taken email writes nothing', async () => {
      const user = await ctx.createAccount();
      const written = await ctx.eventsWrittenBy(async () => {
        const body = { email: user.email, password: PASSWORD };
        expect((await ctx.request('POST', '/auth/sign-up', { body })).status).toBe(202);
      });
      expect(written).toEqual([]);
    });

    test('password sign-in succeeded, failed (known and unknown email), refused', async () => {
      const user = await ctx.createAccount();
      const ok = await ctx.eventsWrittenBy(() => ctx.signIn(user.email));
      expect(onlyEvent(ok)).toMatchObject({
        action: 'sign_in.succeeded',
        actorId: user.id,
        subjectId: user.id,
        details: { method: 'password' },
      });

      const wrong = await ctx.eventsWrittenBy(async () => {
        const body = { email: user.email, password: 'wrong password' };
        expect((await ctx.request('POST', '/auth/sign-in', { body })).status).toBe(401);
      });
      expect(onlyEvent(wrong)).toMatchObject({
        action: 'sign_in.failed',
        actorId: null,
        subjectId: user.id,
        details: { method: 'password', knownAccount: true },
      });

      const unknown = await ctx.eventsWrittenBy(async () => {
        const body = { email: 'Nobody@Example.com', password: 'wrong password' };
        expect((await ctx.request('POST', '/auth/sign-in', { body })).status).toBe(401);
      });
      expect(onlyEvent(unknown)).toMatchObject({
        action: 'sign_in.failed',
        subjectId: null,
        details: { method: 'password', knownAccount: false },
      });
    });

    test('a sign-in refused by the guessing protection: one refusal, no failure', async () => {
      const user = await ctx.createAccount();
      const headers = { 'x-forwarded-for': '203.0.113.9' };
      const body = { email: user.email, password: 'wrong password' };
      for (let i = 0; i < 10; i++) {
        expect((await ctx.request('POST', '/auth/sign-in', { body, headers })).status).toBe(401);
      }
      const written = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('POST', '/auth/sign-in', {
          body: { email: user.email, password: PASSWORD },
        });
        expect(res.status).toBe(429);
      });
      expect(onlyEvent(written)).toMatchObject({
        action: 'sign_in.refused',
        actorId: null,
        subjectId: user.id,
        details: { method: 'password' },
      });
    });

    test('passkey added, renamed, deleted; passkey sign-in succeeded and failed', async () => {
      const session = await ctx.newUser();
      const authenticator = ctx.newAuthenticator();
      let passkeyId = '';
      const added = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.register(session, authenticator, {}, 'Laptop');
        expect(res.status).toBe(201);
        passkeyId = res.body.id;
      });
      expect(onlyEvent(added)).toMatchObject({
        action: 'passkey.added',
        actorId: session.user.id,
        subjectId: session.user.id,
        target: passkeyId,
        details: { name: 'Laptop' },
      });

      const signedIn = await ctx.eventsWrittenBy(async () => {
        expect((await ctx.authenticate(authenticator)).status).toBe(200);
      });
      expect(onlyEvent(signedIn)).toMatchObject({
        action: 'sign_in.succeeded',
        actorId: session.user.id,
        subjectId: session.user.id,
        details: { method: 'passkey' },
      });

      const renamed = await ctx.eventsWrittenBy(async () => {
        const body = { name: 'Work laptop' };
        const res = await ctx.browser(session, 'PATCH', `/auth/passkeys/${passkeyId}`, { body });
        expect(res.status).toBe(200);
      });
      expect(onlyEvent(renamed)).toMatchObject({
        action: 'passkey.renamed',
        actorId: session.user.id,
        target: passkeyId,
        details: { name: 'Work laptop' },
      });

      const deleted = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.browser(session, 'DELETE', `/auth/passkeys/${passkeyId}`);
        expect(res.status).toBe(204);
      });
      expect(onlyEvent(deleted)).toMatchObject({
        action: 'passkey.deleted',
        actorId: session.user.id,
        subjectId: session.user.id,
        target: passkeyId,
      });

      const failed = await ctx.eventsWrittenBy(async () => {
        expect((await ctx.authenticate(authenticator)).status).toBe(401);
      });
      expect(onlyEvent(failed)).toMatchObject({
        action: 'sign_in.failed',
        actorId: null,
        subjectId: null,
        details: { method: 'passkey', knownCredential: false },
      });
    });

    test('sign-out: one event by the session’s user; a second sign-out writes nothing', async () => {
      const session = await ctx.newUser();
      const out = () => ctx.browser(session, 'POST', '/auth/sign-out');
      const written = await ctx.eventsWrittenBy(async () => {
        expect((await out()).status).toBe(204);
      });
      expect(onlyEvent(written)).toMatchObject({
        action: 'sign_out',
        actorId: session.user.id,
        subjectId: session.user.id,
      });
      expect(await ctx.eventsWrittenBy(out)).toEqual([]);
    });

    describe('a failed action that rolls back leaves no event', () => {
      test('registering a credential twice (409), renaming or deleting another user’s passkey (404)', async () => {
        const alice = await ctx.newUser();
        const bob = await ctx.newUser();
        const authenticator = ctx.newAuthenticator();
        const original = await authenticator.createCredential(await ctx.registrationOptions(alice));
        const first = await ctx.browser<{ id: string }>(alice, 'POST', '/auth/passkey/register', {
          body: { response: original },
        });
        expect(first.status).toBe(201);
        const written = await ctx.eventsWrittenBy(async () => {
          const fresh = await authenticator.createCredential(await ctx.registrationOptions(bob));
          const duplicate = {
            ...original,
            response: { ...original.response, clientDataJSON: fresh.response.clientDataJSON },
          };
          const again = await ctx.browser(bob, 'POST', '/auth/passkey/register', {
            body: { response: duplicate },
          });
          expect(again.status).toBe(409);
          const path = `/auth/passkeys/${first.body.id}`;
          const rename = await ctx.browser(bob, 'PATCH', path, { body: { name: 'Mine' } });
          expect(rename.status).toBe(404);
          expect((await ctx.browser(bob, 'DELETE', path)).status).toBe(404);
        });
        expect(written).toEqual([]);
      });

      test('a rename with a bad name (422) writes nothing', async () => {
        const { session, passkey } = await ctx.userWithPasskey();
        const written = await ctx.eventsWrittenBy(async () => {
          const res = await ctx.browser(session, 'PATCH', `/auth/passkeys/${passkey.id}`, {
            body: { name: '' },
          });
          expect(res.status).toBe(422);
        });
        expect(written).toEqual([]);
      });
    });

    test('the session cookie of the sign-in event is the one GET /auth/sessions marks current', async () => {
      const user = await ctx.createAccount();
      const res = await ctx.request('POST', '/auth/sign-in', {
        body: { email: user.email, password: PASSWORD },
        headers: { origin: ORIGIN },
      });
      const cookie = cookieOf(res.headers.get('set-cookie'));
      const list = await ctx.request<{ sessions: { id: string; current: boolean }[] }>(
        'GET',
        '/auth/sessions',
        { headers: { cookie } },
      );
      const current = list.body.sessions.find((s) => s.current);
      expect((await ctx.auditRows('sign_in.succeeded')).at(-1)?.target).toBe(current!.id);
    });
  });

  under.describe('security log: a passkey sign-in refused by the per-address limit', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('the 51st failed verification from one address → 429 and one sign_in.refused', async () => {
      const { authenticator, session } = await ctx.userWithPasskey();
      const first = await ctx.authenticate(authenticator);
      expect(first.status).toBe(200);
      // A replay fails verification and counts for the address.
      const replay = () =>
        ctx.request('POST', '/auth/passkey/authenticate', { body: { response: first.response } });
      for (let i = 0; i < 50; i++) expect((await replay()).status).toBe(401);
      const written = await ctx.eventsWrittenBy(async () => {
        expect((await replay()).status).toBe(429);
      });
      expect(onlyEvent(written)).toMatchObject({
        action: 'sign_in.refused',
        actorId: null,
        subjectId: session.user.id,
        details: { method: 'passkey', knownCredential: true },
      });
      // Past the hourly rows of one action on an account, the rest are counted into one.
      const failed = await ctx.auditRows('sign_in.failed');
      expect(failed).toHaveLength(DEFAULT_AUDIT_ROWS_PER_HOUR + 1);
      expect(failed.reduce((sum, row) => sum + row.count, 0)).toBe(50);
    });
  });
}
