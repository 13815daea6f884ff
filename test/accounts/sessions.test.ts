import { beforeAll, expect, test } from 'bun:test';
import { SessionList } from '@/accounts/schemas';
import { LAST_SEEN_RESOLUTION_MS } from '@/accounts/sessions';
import { badRequest, problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { cookieOf, ORIGIN, PASSWORD } from './support';

for (const under of storesUnderTest()) {
  under.describe('browser sessions: GET /auth/sessions, DELETE /auth/sessions/{id}', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });
    const signInFrom = async (email: string, userAgent: string) => {
      const res = await ctx.request('POST', '/auth/sign-in', {
        body: { email, password: PASSWORD },
        headers: { 'user-agent': userAgent },
      });
      expect(res.status).toBe(200);
      return cookieOf(res.headers.get('set-cookie'));
    };
    const list = async (cookie: string) => {
      const res = await ctx.request('GET', '/auth/sessions', { headers: { cookie } });
      expect(res.status).toBe(200);
      return SessionList.parse(res.body).sessions;
    };

    test('happy: every live session, newest first, with where it signed in and which one is this', async () => {
      const user = await ctx.createAccount();
      const phone = await signInFrom(user.email, 'Phone/1.0');
      ctx.clock.advance(60_000);
      const laptop = await signInFrom(user.email, 'Laptop/2.0');
      const sessions = await list(laptop);
      expect(sessions.map(({ userAgent, current, ip }) => ({ userAgent, current, ip }))).toEqual([
        { userAgent: 'Laptop/2.0', current: true, ip: '127.0.0.1' },
        { userAgent: 'Phone/1.0', current: false, ip: '127.0.0.1' },
      ]);
      expect(sessions[1]!.createdAt).toBe(new Date(ctx.clock() - 60_000).toISOString());
      expect((await list(phone)).map((session) => session.current)).toEqual([false, true]);
    });

    test('happy: last seen moves with use, at most once per resolution', async () => {
      const user = await ctx.createAccount();
      const cookie = await signInFrom(user.email, 'Browser');
      const signedInAt = new Date(ctx.clock()).toISOString();
      ctx.clock.advance(LAST_SEEN_RESOLUTION_MS - 1);
      expect((await list(cookie))[0]!.lastSeenAt).toBe(signedInAt);
      ctx.clock.advance(1);
      await list(cookie);
      expect((await list(cookie))[0]!.lastSeenAt).toBe(new Date(ctx.clock()).toISOString());
    });

    test('happy: sign out elsewhere → 204, that cookie stops working, one session.revoked event', async () => {
      const user = await ctx.createAccount();
      const other = await signInFrom(user.email, 'Old phone');
      const mine = await signInFrom(user.email, 'Laptop');
      const target = (await list(mine)).find((session) => !session.current)!;
      const before = (await ctx.auditRows('session.revoked')).length;
      const res = await ctx.request('DELETE', `/auth/sessions/${target.id}`, {
        headers: { cookie: mine, origin: ORIGIN },
      });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const events = await ctx.auditRows('session.revoked');
      expect(events).toHaveLength(before + 1);
      expect(events.at(-1)).toMatchObject({
        actorId: user.id,
        subjectId: user.id,
        target: target.id,
      });
      expect((await ctx.request('GET', '/auth/me', { headers: { cookie: other } })).status).toBe(
        401,
      );
      expect((await list(mine)).map((session) => session.userAgent)).toEqual(['Laptop']);
    });

    test('error: another user’s, an unknown or an already revoked session → 404, nothing written', async () => {
      const alice = await ctx.newUser();
      const bob = await ctx.newUser();
      const bobs = (await list(bob.cookie))[0]!.id;
      const before = (await ctx.auditRows()).length;
      for (const id of [bobs, 'unknown-session-id']) {
        const res = await ctx.browser(alice, 'DELETE', `/auth/sessions/${id}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404));
      }
      expect(await ctx.auditRows()).toHaveLength(before);
      expect(
        (await ctx.request('GET', '/auth/me', { headers: { cookie: bob.cookie } })).status,
      ).toBe(200);
    });

    test('error: an id over 64 characters → 400', async () => {
      const alice = await ctx.newUser();
      const res = await ctx.browser(alice, 'DELETE', `/auth/sessions/${'x'.repeat(65)}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        badRequest(['id', `must have at most 64 characters (got "${'x'.repeat(64)}…")`]),
      );
    });

    test('auth: no credential → 401; a cookie from a foreign Origin → 403; a bearer token lists (none current)', async () => {
      expect((await ctx.request('GET', '/auth/sessions')).status).toBe(401);
      expect((await ctx.request('DELETE', '/auth/sessions/x')).status).toBe(401);
      const alice = await ctx.newUser();
      const id = (await list(alice.cookie))[0]!.id;
      const foreign = await ctx.request('DELETE', `/auth/sessions/${id}`, {
        headers: { cookie: alice.cookie, origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);
      const res = await ctx.request('GET', '/auth/sessions', { token: alice.token });
      expect(SessionList.parse(res.body).sessions.map((session) => session.current)).toEqual([
        false,
      ]);
    });
  });
}
