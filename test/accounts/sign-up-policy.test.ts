import { beforeAll, describe, expect, test } from 'bun:test';
import { SIGN_UP_ACCEPTED_MESSAGE, SIGN_UP_CLOSED_DETAIL } from '@/accounts/messages';
import { UserSummary } from '@/api/accounts/schemas';
import { expectAuthGuards } from '../support/auth-guards';
import { problemOf } from '../support/harness';
import { type AccountsTestApp, sqliteUnderTest, storesUnderTest } from './stores';
import { controllableHasher, PASSWORD, settle } from './support';

const signUpBody = (email: string) => ({ body: { email, password: PASSWORD } });

for (const under of storesUnderTest()) {
  under.describe('sign-up closed', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { SIGN_UP: 'closed' } });
    });

    test('POST /auth/sign-up → 403 saying sign-up is closed, whatever the body; nothing created', async () => {
      for (const body of [{ email: 'new@example.com', password: PASSWORD }, { nonsense: true }]) {
        const res = await ctx.request('POST', '/auth/sign-up', { body });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(problemOf(403, SIGN_UP_CLOSED_DETAIL));
      }
      expect(await ctx.deps.stores.accounts.hasAnyUser()).toBe(false);
    });

    test('GET /account carries no sign-up form (and keeps its sign-in form)', async () => {
      const res = await ctx.request('GET', '/account');
      expect(res.status).toBe(200);
      expect(res.text).toContain('id="sign-in-form"');
      expect(res.text).not.toContain('sign-up');
      expect(res.text).not.toContain('Create an account');
    });

    test('an employee still creates accounts at POST /admin/users, which then sign in', async () => {
      const employee = await ctx.tokenFor('ops', 'employee');
      const res = await ctx.request('POST', '/admin/users', {
        token: employee,
        body: { email: ' New.Person@Example.com', password: PASSWORD, role: 'customer' },
      });
      expect(res.status).toBe(201);
      const user = UserSummary.parse(res.body);
      expect(user).toEqual({
        id: user.id,
        email: 'new.person@example.com',
        role: 'customer',
        emailVerified: true,
      });
      expect((await ctx.signIn('new.person@example.com')).user).toEqual(user);
    });
  });

  under.describe('POST /admin/users', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app();
    });

    test('happy: an employee account → 201', async () => {
      const res = await ctx.request('POST', '/admin/users', {
        token: await ctx.tokenFor('ops', 'employee'),
        body: { email: 'staff@example.com', password: PASSWORD, role: 'employee' },
      });
      expect(res.status).toBe(201);
      expect((await ctx.findUser('staff@example.com'))?.role).toBe('employee');
    });

    test('error: a taken email → 409; bad email, short password, unknown role → 422', async () => {
      const token = await ctx.tokenFor('ops', 'employee');
      const taken = await ctx.createAccount();
      const again = await ctx.request('POST', '/admin/users', {
        token,
        body: { email: taken.email.toUpperCase(), password: PASSWORD, role: 'customer' },
      });
      expect(again.status).toBe(409);
      expect(again.body).toEqual(problemOf(409));
      const bad = await ctx.request('POST', '/admin/users', {
        token,
        body: { email: 'nope', password: 'short', role: 'admin' },
      });
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual(
        problemOf(422, undefined, {
          email: { emailInvalidFormat: 'The input is not a valid email' },
          password: { stringLengthTooShort: 'The input is less than 8 characters long' },
          role: {
            notInArray: 'The input was not found in the haystack; allowed: customer, employee',
          },
        }),
      );
    });

    test('auth: anonymous → 401, a customer → 403, before the body is looked at', async () => {
      await expectAuthGuards(ctx, 'employee', ['POST /admin/users'], {
        body: {},
        token: await ctx.tokenFor('someone', 'customer'),
      });
    });
  });

  under.describe('sign-ups per address', () => {
    const stub = controllableHasher();
    stub.state.auto = true;
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { SIGN_UP_PER_IP_PER_HOUR: '3', TRUST_PROXY: 'true' },
        hasher: stub.hasher,
      });
    });
    const from = (ip: string, email: string) =>
      ctx.request('POST', '/auth/sign-up', {
        ...signUpBody(email),
        headers: { 'x-forwarded-for': ip },
      });

    test('past the limit → 429 with Retry-After before any hashing; other addresses unaffected; lifts after the hour', async () => {
      for (let i = 0; i < 3; i++)
        expect((await from('198.51.100.1', `a${i}@x.example`)).status).toBe(202);
      const callsBefore = stub.state.calls;
      ctx.clock.advance(10 * 60 * 1000);
      const refused = await from('198.51.100.1', 'a3@x.example');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(problemOf(429));
      expect(refused.headers.get('retry-after')).toBe('3000');
      // Refused before the body's password reached the hasher, and nothing stored.
      expect(stub.state.calls).toBe(callsBefore);
      expect(await ctx.findUser('a3@x.example')).toBeUndefined();

      expect((await from('198.51.100.2', 'b@x.example')).status).toBe(202);
      ctx.clock.advance(50 * 60 * 1000);
      expect((await from('198.51.100.1', 'a3@x.example')).status).toBe(202);
    });
  });
}

// The hashing bounds hold before any account is looked up: the same on every store.
// A request reaches the hasher only after the database has answered it (on
// PostgreSQL, after round trips), so a test waits until the one it holds
// waiting is queued before it sends the one that must be refused: sent
// earlier, that one could take the queue's place and wait forever.
describe('hashing capacity (concurrency 1, queue 1)', () => {
  const stub = controllableHasher();
  // From addresses of their own: one address holds at most a share of the capacity (test/accounts/fair-hashing.test.ts).
  let ctx: AccountsTestApp;
  beforeAll(async () => {
    ctx = await sqliteUnderTest.app({
      env: { HASH_CONCURRENCY: '1', HASH_QUEUE: '1', TRUST_PROXY: 'true' },
      hasher: stub.hasher,
    });
  });
  const from = (ip: string, options: { body: unknown }) => ({
    ...options,
    headers: { 'x-forwarded-for': ip },
  });

  test('one hashes, one waits, the next → 503 with Retry-After at once; the admitted two finish', async () => {
    const first = ctx.request(
      'POST',
      '/auth/sign-up',
      from('192.0.2.1', signUpBody('one@example.com')),
    );
    const second = ctx.request(
      'POST',
      '/auth/sign-up',
      from('192.0.2.2', signUpBody('two@example.com')),
    );
    const bounded = ctx.deps.accounts.hasher;
    await settle(() => stub.state.calls === 1 && bounded.waiting === 1);
    expect(stub.state.calls).toBe(1);
    expect(bounded.waiting).toBe(1);
    const third = await ctx.request(
      'POST',
      '/auth/sign-up',
      from('192.0.2.3', signUpBody('three@example.com')),
    );
    expect(third.status).toBe(503);
    expect(third.body).toEqual(problemOf(503));
    expect(third.headers.get('retry-after')).toBe('1');

    stub.release();
    await settle(() => stub.state.calls === 2);
    expect(stub.state.calls).toBe(2);
    stub.release();
    expect((await first).status).toBe(202);
    expect((await second).status).toBe(202);
    expect(await ctx.findUser('three@example.com')).toBeUndefined();
    expect((await ctx.findUser('two@example.com'))?.passwordHash).toBe(`stub:${PASSWORD}`);
  });

  test('a sign-up refused for capacity still counts against the address', async () => {
    const limited = controllableHasher();
    const small = await sqliteUnderTest.app({
      env: { HASH_CONCURRENCY: '1', HASH_QUEUE: '0', SIGN_UP_PER_IP_PER_HOUR: '2' },
      hasher: limited.hasher,
    });
    const first = small.request('POST', '/auth/sign-up', signUpBody('a@example.com'));
    await settle(() => limited.state.calls === 1);
    expect((await small.request('POST', '/auth/sign-up', signUpBody('b@example.com'))).status).toBe(
      503,
    );
    limited.state.auto = true;
    limited.release();
    expect((await first).status).toBe(202);
    const third = await small.request('POST', '/auth/sign-up', signUpBody('b@example.com'));
    expect(third.status).toBe(429);
    expect(third.body).toEqual(problemOf(429));
  });

  test('a sign-in refused for capacity → 503 and does not count as a failed guess', async () => {
    stub.state.auto = true;
    await ctx.signUp('four@example.com');
    // One account holds at most a share of the capacity: the blockers are two accounts.
    await ctx.signUp('six@example.com');
    stub.state.auto = false;
    const before = stub.state.calls;
    const blockers = [
      ctx.request('POST', '/auth/sign-in', from('192.0.2.4', signUpBody('four@example.com'))),
      ctx.request('POST', '/auth/sign-in', from('192.0.2.5', signUpBody('six@example.com'))),
    ];
    const bounded = ctx.deps.accounts.hasher;
    await settle(() => stub.state.calls === before + 1 && bounded.waiting === 1);
    expect(bounded.waiting).toBe(1);
    for (let i = 0; i < 12; i++) {
      const busy = await ctx.request('POST', '/auth/sign-in', {
        body: { email: 'four@example.com', password: 'wrong password' },
      });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
    }
    stub.state.auto = true;
    stub.release();
    stub.release();
    for (const blocker of blockers) expect((await blocker).status).toBe(200);
    // Twelve refusals, yet no lock: none of them was a guess.
    expect(
      (await ctx.request('POST', '/auth/sign-in', signUpBody('four@example.com'))).status,
    ).toBe(200);
  });

  test('the sign-up answer for a taken email costs the same hash and matches a free one', async () => {
    stub.state.auto = true;
    await ctx.signUp('five@example.com');
    const calls = stub.state.calls;
    const taken = await ctx.request('POST', '/auth/sign-up', signUpBody('FIVE@example.com'));
    expect(stub.state.calls).toBe(calls + 1);
    expect(taken.status).toBe(202);
    expect(taken.body).toEqual({ email: 'five@example.com', message: SIGN_UP_ACCEPTED_MESSAGE });
  });
});
