import { beforeAll, expect, test } from 'bun:test';
import { SessionList } from '@/accounts/schemas';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { controllableHasher, PASSWORD, type SignedIn } from './support';

const NEW_PASSWORD = 'a brand new passphrase';

for (const under of storesUnderTest()) {
  under.describe('hashing limits: per account and per address, successes included', () => {
    const stub = controllableHasher();
    stub.state.auto = true;
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: {
          PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '3',
          PASSWORD_HASHES_PER_IP_PER_MINUTE: '5',
          TRUST_PROXY: 'true',
        },
        hasher: stub.hasher,
      });
    });
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const signInFrom = (ip: string, email: string, password = PASSWORD) =>
      ctx.request('POST', '/auth/sign-in', { body: { email, password }, headers: from(ip) });
    /** An account signed up (stub hash) from an address of its own, its window left behind. */
    async function account(email: string) {
      const res = await ctx.request('POST', '/auth/sign-up', {
        body: { email, password: PASSWORD },
        headers: from(`203.0.113.${email.length}`),
      });
      expect(res.status).toBe(202);
      ctx.clock.advance(61_000);
    }
    const expectRefused = (
      res: { status: number; body: unknown; headers: Headers },
      after: string,
    ) => {
      expect(res.status).toBe(429);
      expect(res.body).toEqual(problemOf(429));
      expect(res.headers.get('retry-after')).toBe(after);
    };

    test('sign-in: a correct password counts too; past the account’s limit from one address → 429 before hashing; elsewhere unaffected; lifts after the minute', async () => {
      await account('alice@example.com');
      for (let i = 0; i < 3; i++) {
        expect((await signInFrom('198.51.100.1', 'alice@example.com')).status).toBe(200);
      }
      const calls = stub.state.calls;
      ctx.clock.advance(15_000);
      expectRefused(await signInFrom('198.51.100.1', 'ALICE@example.com'), '45');
      expect(stub.state.calls).toBe(calls);
      // From another address the owner still signs in: a stranger cannot lock them out.
      expect((await signInFrom('198.51.100.2', 'alice@example.com')).status).toBe(200);
      ctx.clock.advance(45_000);
      expect((await signInFrom('198.51.100.1', 'alice@example.com')).status).toBe(200);
    });

    test('per address: sign-ins for any email, right or wrong or unknown, and sign-ups add up → 429 before hashing', async () => {
      await account('bob@example.com');
      const ip = '198.51.100.3';
      expect((await signInFrom(ip, 'bob@example.com')).status).toBe(200);
      expect((await signInFrom(ip, 'bob@example.com', 'wrong password')).status).toBe(401);
      expect((await signInFrom(ip, 'nobody@example.com')).status).toBe(401);
      const signUp = await ctx.request('POST', '/auth/sign-up', {
        body: { email: 'carol@example.com', password: PASSWORD },
        headers: from(ip),
      });
      expect(signUp.status).toBe(202);
      expect((await signInFrom(ip, 'carol@example.com')).status).toBe(200);
      const calls = stub.state.calls;
      expectRefused(await signInFrom(ip, 'bob@example.com'), '60');
      const refusedSignUp = await ctx.request('POST', '/auth/sign-up', {
        body: { email: 'dave@example.com', password: PASSWORD },
        headers: from(ip),
      });
      expectRefused(refusedSignUp, '60');
      expect(stub.state.calls).toBe(calls);
      expect(await ctx.findUser('dave@example.com')).toBeUndefined();
      expect((await signInFrom('198.51.100.4', 'bob@example.com')).status).toBe(200);
    });

    test('password change: the signed-in account’s limit holds from every address; refused before hashing, nothing changed', async () => {
      await account('erin@example.com');
      const session = await (async (): Promise<SignedIn> => {
        const res = await signInFrom('198.51.100.5', 'erin@example.com');
        expect(res.status).toBe(200);
        const body = res.body as { accessToken: string; user: SignedIn['user'] };
        const cookie = res.headers.get('set-cookie')?.split(';')[0] ?? '';
        return { user: body.user, token: body.accessToken, cookie };
      })();
      const change = (ip: string, currentPassword: string, newPassword: string) =>
        ctx.browser(session, 'POST', '/auth/password', {
          body: { currentPassword, newPassword },
          headers: from(ip),
        });
      expect((await change('198.51.100.6', PASSWORD, NEW_PASSWORD)).status).toBe(204);
      expect((await change('198.51.100.7', NEW_PASSWORD, PASSWORD)).status).toBe(204);
      // A wrong current password counts as well.
      expect((await change('198.51.100.8', 'wrong password', NEW_PASSWORD)).status).toBe(401);
      const calls = stub.state.calls;
      expectRefused(await change('198.51.100.9', PASSWORD, NEW_PASSWORD), '60');
      expect(stub.state.calls).toBe(calls);
      expect((await ctx.findUser('erin@example.com'))?.passwordHash).toBe(`stub:${PASSWORD}`);
    });

    test('employees: creating accounts and setting passwords count per employee and address', async () => {
      const token = await ctx.tokenFor('ops', 'employee');
      const create = (ip: string, email: string) =>
        ctx.request('POST', '/admin/users', {
          token,
          body: { email, password: PASSWORD, role: 'customer' },
          headers: from(ip),
        });
      const created = await create('198.51.100.9', 'frank@example.com');
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id;
      const setPassword = (ip: string) =>
        ctx.request('POST', `/admin/users/${id}/password`, {
          token,
          body: { password: NEW_PASSWORD },
          headers: from(ip),
        });
      expect((await setPassword('198.51.100.10')).status).toBe(204);
      expect((await create('198.51.100.11', 'grace@example.com')).status).toBe(201);
      const calls = stub.state.calls;
      expectRefused(await setPassword('198.51.100.12'), '60');
      expectRefused(await create('198.51.100.13', 'heidi@example.com'), '60');
      expect(stub.state.calls).toBe(calls);
      expect(await ctx.findUser('heidi@example.com')).toBeUndefined();
    });
  });

  under.describe('live sessions per account (SESSIONS_PER_ACCOUNT)', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { SESSIONS_PER_ACCOUNT: '3' } });
    });

    test('a sign-in past the cap ends the oldest sessions in its transaction, its event counts them', async () => {
      const user = await ctx.createAccount();
      const sessions: SignedIn[] = [];
      for (let i = 0; i < 3; i++) {
        sessions.push(await ctx.signIn(user.email));
        ctx.clock.advance(1_000);
      }
      const events = await ctx.eventsWrittenBy(async () => {
        sessions.push(await ctx.signIn(user.email));
      });
      expect(events.map((event) => [event.action, event.details])).toEqual([
        ['sign_in.succeeded', { method: 'password', sessionsEnded: 1 }],
      ]);
      ctx.clock.advance(1_000);
      sessions.push(await ctx.signIn(user.email));

      const me = (session: SignedIn) =>
        ctx.request('GET', '/auth/me', { headers: { cookie: session.cookie } });
      expect((await me(sessions[0]!)).status).toBe(401);
      expect((await me(sessions[1]!)).status).toBe(401);
      for (const session of sessions.slice(2)) expect((await me(session)).status).toBe(200);
      const list = await ctx.browser(sessions[4]!, 'GET', '/auth/sessions');
      expect(SessionList.parse(list.body).sessions).toHaveLength(3);
      // Another account's sessions are not touched.
      const other = await ctx.newUser();
      expect((await me(other)).status).toBe(200);
      expect((await me(sessions[2]!)).status).toBe(200);
    });

    test('sign-ins at once never leave more than the cap', async () => {
      const user = await ctx.createAccount();
      const signedIn = await Promise.all(Array.from({ length: 8 }, () => ctx.signIn(user.email)));
      const alive = await Promise.all(
        signedIn.map(
          async (session) =>
            (await ctx.request('GET', '/auth/me', { headers: { cookie: session.cookie } })).status,
        ),
      );
      // On PostgreSQL each would count the others as not there yet without the user's row locked.
      expect(alive.filter((status) => status === 200)).toHaveLength(3);
    });
  });
}
