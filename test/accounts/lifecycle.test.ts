import { beforeAll, expect, test } from 'bun:test';
import { ACCOUNT_FAILURE_LIMIT } from '@/accounts/guessing';
import { LAST_EMPLOYEE_DETAIL } from '@/accounts/messages';
import { SessionList } from '@/accounts/schemas';
import { expectAuthGuards } from '../support/auth-guards';
import { badRequest, problemOf } from '../support/harness';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { PASSWORD, type SignedIn } from './support';

const NEW_PASSWORD = 'a brand new passphrase';

for (const under of storesUnderTest()) {
  under.describe('password change: POST /auth/password', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });
    const me = (credential: { token?: string; cookie?: string }) =>
      ctx.request('GET', '/auth/me', {
        ...(credential.token ? { token: credential.token } : {}),
        ...(credential.cookie ? { headers: { cookie: credential.cookie } } : {}),
      });
    const change = (session: SignedIn, body: unknown) =>
      ctx.browser(session, 'POST', '/auth/password', { body });
    const signInStatus = async (email: string, password: string) =>
      (await ctx.request('POST', '/auth/sign-in', { body: { email, password } })).status;

    test('happy: 204; the earlier token and the other session answer 401, this session continues', async () => {
      const user = await ctx.createAccount();
      const phone = await ctx.signIn(user.email);
      const laptop = await ctx.signIn(user.email);
      ctx.clock.advance(5_000);
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await change(laptop, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
      });
      expect(events.map((event) => [event.action, event.details])).toEqual([
        ['password.changed', { sessionsEnded: 1 }],
      ]);
      expect((await me({ token: laptop.token })).status).toBe(401);
      expect((await me({ token: phone.token })).status).toBe(401);
      expect((await me({ token: phone.token })).body).toEqual(problemOf(401));
      expect((await me({ cookie: phone.cookie })).status).toBe(401);
      expect((await me({ cookie: laptop.cookie })).status).toBe(200);
      expect(await signInStatus(user.email, PASSWORD)).toBe(401);
      expect(await signInStatus(user.email, NEW_PASSWORD)).toBe(200);
    });

    test('happy: a token issued in the same second, after the change, works', async () => {
      const session = await ctx.newUser();
      const res = await change(session, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(res.status).toBe(204);
      const again = await ctx.signIn(session.user.email, NEW_PASSWORD);
      expect((await me({ token: again.token })).status).toBe(200);
      expect((await me({ token: session.token })).status).toBe(401);
    });

    test('happy: a bearer caller changes it; its own token is revoked too', async () => {
      const session = await ctx.newUser();
      const res = await ctx.request('POST', '/auth/password', {
        token: session.token,
        body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(res.status).toBe(204);
      expect((await me({ token: session.token })).status).toBe(401);
      // Every session of the account ended: a bearer call has none of its own to keep.
      expect((await me({ cookie: session.cookie })).status).toBe(401);
    });

    test('error: a wrong current password → 401, counted, nothing changed', async () => {
      const session = await ctx.newUser();
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await change(session, { currentPassword: 'wrong', newPassword: NEW_PASSWORD });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(problemOf(401));
      });
      expect(events.map((event) => [event.action, event.subjectId])).toEqual([
        ['sign_in.failed', session.user.id],
      ]);
      expect((await me({ token: session.token })).status).toBe(200);
      expect(await signInStatus(session.user.email, PASSWORD)).toBe(200);
    });

    test('error: past the guessing limit → 429, even with the right password', async () => {
      const session = await ctx.newUser();
      for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
        const res = await change(session, { currentPassword: 'wrong', newPassword: NEW_PASSWORD });
        expect(res.status).toBe(401);
      }
      const refused = await change(session, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(15 * 60));
      // Nothing changed: once the window has passed, the old password still signs in.
      ctx.clock.advance(15 * 60 * 1000);
      expect(await signInStatus(session.user.email, NEW_PASSWORD)).toBe(401);
      expect(await signInStatus(session.user.email, PASSWORD)).toBe(200);
    });

    test('error: bad bodies → 422 with sign-up messages, nothing written', async () => {
      const session = await ctx.newUser();
      const events = await ctx.eventsWrittenBy(async () => {
        const short = await change(session, { currentPassword: PASSWORD, newPassword: 'short' });
        expect(short.status).toBe(422);
        expect(short.body).toEqual(
          problemOf(422, undefined, {
            newPassword: { stringLengthTooShort: 'The input is less than 8 characters long' },
          }),
        );
        const missing = await change(session, { newPassword: NEW_PASSWORD, extra: 1 });
        expect(missing.status).toBe(422);
        expect(missing.body).toEqual(
          problemOf(422, undefined, {
            currentPassword: { isEmpty: "Value is required and can't be empty" },
            extra: { notAllowed: 'The field is not allowed' },
          }),
        );
      });
      expect(events).toEqual([]);
      expect((await me({ token: session.token })).status).toBe(200);
    });

    test('auth: anonymous → 401 before the body; a token of no account → 403', async () => {
      const anonymous = await ctx.request('POST', '/auth/password', { body: {} });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual(problemOf(401));
      const orphan = await ctx.request('POST', '/auth/password', {
        token: await ctx.tokenFor('no-such-account'),
        body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(orphan.status).toBe(403);
      expect(orphan.body).toEqual(problemOf(403));
    });
  });

  under.describe('sign out everywhere: DELETE /auth/sessions', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('happy: every session and every earlier token answer 401; a new sign-in works', async () => {
      const user = await ctx.createAccount();
      const phone = await ctx.signIn(user.email);
      const laptop = await ctx.signIn(user.email);
      const other = await ctx.newUser();
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.browser(laptop, 'DELETE', '/auth/sessions');
        expect(res.status).toBe(204);
        expect(res.headers.get('set-cookie')).toBe(
          'session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
        );
      });
      expect(events.map((event) => [event.action, event.details])).toEqual([
        ['sessions.ended_all', { sessionsEnded: 2 }],
      ]);
      for (const credential of [phone, laptop]) {
        expect((await ctx.request('GET', '/auth/me', { token: credential.token })).status).toBe(
          401,
        );
        const cookie = { headers: { cookie: credential.cookie } };
        expect((await ctx.request('GET', '/auth/me', cookie)).status).toBe(401);
      }
      // Another account is untouched.
      expect((await ctx.request('GET', '/auth/me', { token: other.token })).status).toBe(200);
      const again = await ctx.signIn(user.email);
      expect((await ctx.request('GET', '/auth/me', { token: again.token })).status).toBe(200);
      const list = await ctx.browser(again, 'GET', '/auth/sessions');
      expect(SessionList.parse(list.body).sessions).toHaveLength(1);
    });

    test('happy: a bearer token signs its account out everywhere, itself included', async () => {
      const session = await ctx.newUser();
      const res = await ctx.request('DELETE', '/auth/sessions', { token: session.token });
      expect(res.status).toBe(204);
      expect((await ctx.request('GET', '/auth/me', { token: session.token })).status).toBe(401);
    });

    test('auth: anonymous → 401; a cookie from another origin → 403, nothing ended', async () => {
      const anonymous = await ctx.request('DELETE', '/auth/sessions');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual(problemOf(401));
      const session = await ctx.newUser();
      const foreign = await ctx.request('DELETE', '/auth/sessions', {
        headers: { cookie: session.cookie, origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toEqual(problemOf(403));
      expect((await ctx.browser(session, 'GET', '/auth/me')).status).toBe(200);
    });
  });

  under.describe('account administration: /admin/users', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });
    /** A signed-in employee (a real account: the last-employee rule counts accounts). */
    const employee = async () => {
      const user = await ctx.createAccount(undefined, 'employee');
      return ctx.signIn(user.email);
    };
    const admin = <T = unknown>(staff: SignedIn, method: string, path: string, body?: unknown) =>
      ctx.request<T>(method, path, { token: staff.token, ...(body === undefined ? {} : { body }) });
    const meStatus = async (credential: SignedIn) => ({
      token: (await ctx.request('GET', '/auth/me', { token: credential.token })).status,
      cookie: (await ctx.request('GET', '/auth/me', { headers: { cookie: credential.cookie } }))
        .status,
    });

    test('happy: an employee disables, re-enables, resets and deletes an account', async () => {
      const staff = await employee();
      const customer = await ctx.newUser();
      const path = `/admin/users/${customer.user.id}`;

      ctx.clock.advance(1_000);
      const disabled = await admin(staff, 'PATCH', path, { disabled: true });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({
        id: customer.user.id,
        disabled: true,
        disabledAt: new Date(ctx.clock()).toISOString(),
      });
      expect(await meStatus(customer)).toEqual({ token: 401, cookie: 401 });
      const refused = await ctx.request('POST', '/auth/sign-in', {
        body: { email: customer.user.email, password: PASSWORD },
      });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(problemOf(401));
      // A token minted for it now (by whoever holds the secret) is refused too.
      const minted = await ctx.tokenFor(customer.user.id);
      expect((await ctx.request('GET', '/auth/me', { token: minted })).status).toBe(401);

      ctx.clock.advance(1_000);
      const enabled = await admin(staff, 'PATCH', path, { disabled: false });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ disabled: false, disabledAt: null });
      const back = await ctx.signIn(customer.user.email);
      expect(await meStatus(back)).toEqual({ token: 200, cookie: 200 });
      // Tokens from before the account was disabled stay refused.
      expect((await meStatus(customer)).token).toBe(401);

      ctx.clock.advance(1_000);
      const reset = await admin(staff, 'POST', `${path}/password`, { password: NEW_PASSWORD });
      expect(reset.status).toBe(204);
      expect(await meStatus(back)).toEqual({ token: 401, cookie: 401 });
      const withNew = await ctx.signIn(customer.user.email, NEW_PASSWORD);

      ctx.clock.advance(1_000);
      const deleted = await admin(staff, 'DELETE', path);
      expect(deleted.status).toBe(204);
      expect(await meStatus(withNew)).toEqual({ token: 401, cookie: 401 });
      expect((await admin(staff, 'GET', path)).status).toBe(404);
      expect((await ctx.findUser(customer.user.email)) ?? null).toBeNull();

      const actions = (await ctx.auditRows())
        .filter((row) => row.subjectId === customer.user.id && row.actorId === staff.user.id)
        .map((row) => row.action);
      expect(actions).toEqual([
        'account.disabled',
        'account.enabled',
        'account.password_set',
        'account.deleted',
      ]);
    });

    test('happy: a disabled account cannot sign in with a passkey', async () => {
      const staff = await employee();
      const { session, authenticator } = await ctx.userWithPasskey();
      expect((await ctx.authenticate(authenticator)).status).toBe(200);
      const res = await admin(staff, 'PATCH', `/admin/users/${session.user.id}`, {
        disabled: true,
      });
      expect(res.status).toBe(200);
      const refused = await ctx.authenticate(authenticator);
      expect(refused.status).toBe(401);
      expect(refused.body as unknown).toEqual(problemOf(401));
    });

    test('happy: a new role revokes the tokens naming the old one', async () => {
      const staff = await employee();
      const other = await employee();
      ctx.clock.advance(1_000);
      const res = await admin(staff, 'PATCH', `/admin/users/${other.user.id}`, {
        role: 'customer',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ role: 'customer', disabled: false });
      const jobs = await ctx.request('GET', '/admin/jobs', { token: other.token });
      expect(jobs.status).toBe(401);
      // The session reads the role from the account: it continues, as a customer.
      const cookie = { headers: { cookie: other.cookie } };
      expect((await ctx.request('GET', '/admin/jobs', cookie)).status).toBe(403);
    });

    test('happy: search by email, role and state, keyset paged', async () => {
      const staff = await employee();
      const tag = `find${Date.now()}`;
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await ctx.createAccount(`${tag}-${i}@Example.com`));
      await admin(staff, 'PATCH', `/admin/users/${made[1]!.id}`, { disabled: true });
      type Page = { users: { id: string; email: string }[]; nextCursor: string | null };
      const first = await admin<Page>(
        staff,
        'GET',
        `/admin/users?email=${tag.toUpperCase()}&limit=2`,
      );
      expect(first.status).toBe(200);
      expect(first.body.users.map((u) => u.id)).toEqual([made[2]!.id, made[1]!.id]);
      expect(first.body.nextCursor).toBe(made[1]!.id);
      const second = await admin<Page>(
        staff,
        'GET',
        `/admin/users?email=${tag}&limit=2&cursor=${first.body.nextCursor}`,
      );
      expect(second.body).toEqual({
        users: [expect.objectContaining({ id: made[0]!.id, role: 'customer', disabled: false })],
        nextCursor: null,
      });
      const disabled = await admin<Page>(staff, 'GET', `/admin/users?email=${tag}&state=disabled`);
      expect(disabled.body.users.map((u) => u.id)).toEqual([made[1]!.id]);
      const staffOnly = await admin<Page>(staff, 'GET', `/admin/users?email=${tag}&role=employee`);
      expect(staffOnly.body).toEqual({ users: [], nextCursor: null });
      // `%` and `_` are letters here, not wildcards.
      const wildcard = await admin<Page>(staff, 'GET', '/admin/users?email=%25');
      expect(wildcard.body).toEqual({ users: [], nextCursor: null });
      const one = await admin(staff, 'GET', `/admin/users/${made[0]!.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({
        id: made[0]!.id,
        email: `${tag}-0@Example.com`,
        role: 'customer',
        disabled: false,
        createdAt: expect.any(String),
        disabledAt: null,
        emailVerified: true,
      });
    });

    test('error: the last active employee cannot be demoted, disabled or deleted (409), nothing written', async () => {
      const staff = await employee();
      // Every other employee of this app's store is made a customer first.
      type Page = { users: { id: string }[] };
      const others = await admin<Page>(
        staff,
        'GET',
        '/admin/users?role=employee&state=active&limit=100',
      );
      for (const { id } of others.body.users) {
        if (id !== staff.user.id)
          await admin(staff, 'PATCH', `/admin/users/${id}`, { role: 'customer' });
      }
      const path = `/admin/users/${staff.user.id}`;
      const events = await ctx.eventsWrittenBy(async () => {
        for (const [method, body] of [
          ['PATCH', { role: 'customer' }],
          ['PATCH', { disabled: true }],
          ['DELETE', undefined],
        ] as const) {
          const res = await admin(staff, method, path, body);
          expect(res.status).toBe(409);
          expect(res.body).toEqual(problemOf(409, LAST_EMPLOYEE_DETAIL));
        }
      });
      expect(events).toEqual([]);
      expect((await admin(staff, 'GET', path)).body).toMatchObject({
        role: 'employee',
        disabled: false,
      });
      // With a second active employee, the first may step down.
      const second = await employee();
      const res = await admin(second, 'PATCH', path, { role: 'customer' });
      expect(res.status).toBe(200);
    });

    test('error: bad inputs → exact 4xx, nothing written', async () => {
      const staff = await employee();
      const customer = await ctx.createAccount();
      const path = `/admin/users/${customer.id}`;
      const events = await ctx.eventsWrittenBy(async () => {
        const empty = await admin(staff, 'PATCH', path, {});
        expect(empty.status).toBe(422);
        expect(empty.body).toEqual(
          problemOf(422, undefined, { role: { required: 'Name role, disabled or emailVerified' } }),
        );
        const unverify = await admin(staff, 'PATCH', path, { emailVerified: false });
        // An address cannot be marked unverified.
        expect([unverify.status, unverify.body]).toEqual([
          422,
          problemOf(422, undefined, {
            emailVerified: { notInArray: 'The input was not found in the haystack; allowed: true' },
          }),
        ]);
        const bad = await admin(staff, 'PATCH', path, { role: 'admin', disabled: 'yes' });
        expect(bad.status).toBe(422);
        expect(bad.body).toEqual(
          problemOf(422, undefined, {
            role: {
              notInArray: 'The input was not found in the haystack; allowed: customer, employee',
            },
            disabled: { invalidType: 'The input must be of type boolean' },
          }),
        );
        const short = await admin(staff, 'POST', `${path}/password`, { password: 'short' });
        expect(short.status).toBe(422);
        expect(short.body).toEqual(
          problemOf(422, undefined, {
            password: { stringLengthTooShort: 'The input is less than 8 characters long' },
          }),
        );
        for (const [method, suffix, body] of [
          ['GET', '', undefined],
          ['PATCH', '', { disabled: true }],
          ['POST', '/password', { password: NEW_PASSWORD }],
          ['DELETE', '', undefined],
        ] as const) {
          const missing = await admin(
            staff,
            method,
            `/admin/users/01900000-0000-7000-8000-000000000000${suffix}`,
            body,
          );
          expect(missing.status).toBe(404);
          expect(missing.body).toEqual(problemOf(404));
        }
        for (const [query, name, reason] of [
          ['state=gone', 'state', 'must be active or disabled (got "gone")'],
          ['cursor=x', 'cursor', 'must be the nextCursor of the previous page (got "x")'],
          ['limit=101', 'limit', 'must be an integer from 1 to 100 (got "101")'],
          ['role=admin', 'role', 'must be customer or employee (got "admin")'],
          ['email=a&email=b', 'email', 'is given more than once'],
          ['page=2', 'page', 'is not a parameter of this operation'],
        ]) {
          const res = await admin(staff, 'GET', `/admin/users?${query}`);
          expect(res.status).toBe(400);
          expect(res.body).toEqual(badRequest([name!, reason!]));
        }
      });
      expect(events).toEqual([]);
      expect((await admin(staff, 'GET', path)).body).toMatchObject({ disabled: false });
    });

    test('auth: anonymous → 401, a customer → 403, before the body is read', async () => {
      const customer = await ctx.newUser();
      const user = `/admin/users/${customer.user.id}`;
      await expectAuthGuards(
        ctx,
        'employee',
        [
          'GET /admin/users',
          `GET ${user}`,
          `PATCH ${user}`,
          `POST ${user}/password`,
          `DELETE ${user}`,
        ],
        { body: {}, token: customer.token },
      );
      expect((await ctx.request('GET', '/auth/me', { token: customer.token })).status).toBe(200);
    });
  });
}
