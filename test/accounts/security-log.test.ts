import { beforeAll, describe, expect, test } from 'bun:test';
import { AuditPage } from '@/audit/schemas';
import { badRequest, problemOf } from '../support/harness';
import { type AccountsTestApp, sqliteUnderTest } from './stores';
import { PASSWORD } from './support';

describe('GET /auth/security-log', () => {
  let ctx: AccountsTestApp;
  beforeAll(async () => {
    ctx = await sqliteUnderTest.app();
  });
  const read = async (session: { cookie: string }, query = '') => {
    const res = await ctx.request<AuditPage>('GET', `/auth/security-log${query}`, {
      headers: { cookie: session.cookie },
    });
    expect(res.status).toBe(200);
    return AuditPage.parse(res.body);
  };

  test('happy: the account’s own events, newest first, with where they came from', async () => {
    const { session, passkey } = await ctx.userWithPasskey();
    await ctx.browser(session, 'PATCH', `/auth/passkeys/${passkey.id}`, { body: { name: 'Key' } });
    const page = await read(session);
    expect(page.events.map((event) => event.action)).toEqual([
      'passkey.renamed',
      'passkey.added',
      'sign_in.succeeded',
    ]);
    expect(page.events[2]).toMatchObject({
      actor: session.user.id,
      subject: session.user.id,
      ip: '127.0.0.1',
      details: { method: 'password' },
    });
    expect(page.events[2]!.requestId).toEqual(expect.any(String));
    expect(page.nextCursor).toBeNull();
  });

  test('happy: a failed sign-in on the account shows; others’ events never do', async () => {
    const me = await ctx.newUser();
    const other = await ctx.newUser();
    const body = { email: me.user.email, password: 'wrong password' };
    expect((await ctx.request('POST', '/auth/sign-in', { body })).status).toBe(401);
    await ctx.browser(other, 'POST', '/auth/sign-out');
    const page = await read(me);
    expect(page.events.map((event) => event.action)).toEqual([
      'sign_in.failed',
      'sign_in.succeeded',
    ]);
    expect(page.events.every((event) => event.subject === me.user.id)).toBe(true);
  });

  test('happy: keyset paging with limit and cursor; ?user= with one’s own id', async () => {
    const user = await ctx.createAccount();
    for (let i = 0; i < 5; i++) await ctx.signIn(user.email, PASSWORD);
    const session = await ctx.signIn(user.email, PASSWORD);
    const all = await read(session);
    expect(all.events).toHaveLength(6);
    const first = await read(session, '?limit=4');
    expect(first.events).toEqual(all.events.slice(0, 4));
    const second = await read(session, `?limit=4&cursor=${first.nextCursor}`);
    expect(second).toEqual({ events: all.events.slice(4), nextCursor: null });
    expect(await read(session, `?user=${user.id}`)).toEqual(all);
  });

  test('error: another user’s log → 404, as if there were nobody', async () => {
    const me = await ctx.newUser();
    const other = await ctx.newUser();
    for (const user of [other.user.id, 'no-such-user']) {
      const res = await ctx.request('GET', `/auth/security-log?user=${user}`, {
        headers: { cookie: me.cookie },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(problemOf(404));
    }
    // Neither can an employee read it here (GET /admin/audit is theirs).
    const employee = await ctx.tokenFor('ops', 'employee');
    const res = await ctx.request('GET', `/auth/security-log?user=${me.user.id}`, {
      token: employee,
    });
    expect(res.status).toBe(404);
  });

  test.each([
    ['?limit=0', 'limit', 'must be an integer from 1 to 100 (got "0")'],
    ['?limit=101', 'limit', 'must be an integer from 1 to 100 (got "101")'],
    ['?cursor=abc', 'cursor', 'must be the nextCursor of the previous page (got "abc")'],
    ['?cursor=0', 'cursor', 'must be the nextCursor of the previous page (got "0")'],
    ['?other=1', 'other', 'is not a parameter of this operation'],
    ['?limit=1&limit=2', 'limit', 'is given more than once'],
  ])('error: %s → 400 problem naming %s', async (query, name, reason) => {
    const me = await ctx.newUser();
    const res = await ctx.request('GET', `/auth/security-log${query}`, {
      headers: { cookie: me.cookie },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest([name, reason]));
  });

  test('auth: no credential → 401 before the query is looked at; a bearer token works', async () => {
    const res = await ctx.request('GET', '/auth/security-log?limit=0');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
    const me = await ctx.newUser();
    const byToken = await ctx.request<AuditPage>('GET', '/auth/security-log', { token: me.token });
    expect(byToken.status).toBe(200);
    expect(byToken.body.events[0]?.action).toBe('sign_in.succeeded');
  });

  test('an account an employee creates shows that employee as the actor', async () => {
    const employee = await ctx.tokenFor('ops-9', 'employee');
    const email = 'created.by.ops@example.com';
    const res = await ctx.request<{ id: string }>('POST', '/admin/users', {
      token: employee,
      body: { email, password: PASSWORD, role: 'customer' },
    });
    expect(res.status).toBe(201);
    const session = await ctx.signIn(email, PASSWORD);
    const page = await read(session);
    expect(page.events.at(-1)).toMatchObject({
      action: 'account.created',
      actor: 'ops-9',
      subject: res.body.id,
      details: { role: 'customer' },
    });
  });
});
