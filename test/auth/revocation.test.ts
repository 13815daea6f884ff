import { describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { type CutoffNotices, TokenCutoffs } from '@/auth/revocation';
import { type TokenCutoff, TokenService } from '@/auth/tokens';
import { sqliteUnderTest } from '../accounts/stores';
import { propertyBody } from '../listings/support';
import { createTestApp, manualClock, problemOf } from '../support/harness';
import { redisEnv, redisSkipReason, redisTitle } from '../support/redis';

const SECRET = 'a-test-secret-shared-by-the-instances-0123456789';

function service() {
  const clock = manualClock();
  return { clock, tokens: new TokenService(SECRET, clock) };
}

describe('token cut-offs in the token service', () => {
  test('happy: a verified (cached) token is refused once its subject has a cut-off; others are not', async () => {
    const { clock, tokens } = service();
    const mine = await tokens.issue('alice', 'customer', 3600);
    const theirs = await tokens.issue('bob', 'customer', 3600);
    expect(await tokens.verify(mine)).toMatchObject({ sub: 'alice' });
    expect(tokens.cached(mine)).toMatchObject({ sub: 'alice' });
    tokens.setCutoff('alice', clock());
    // The fast lane's synchronous path and the full verification both refuse it.
    expect(tokens.cached(mine)).toBeUndefined();
    expect(await tokens.verify(mine)).toBeNull();
    expect(tokens.cached(theirs)).toBeUndefined();
    expect(await tokens.verify(theirs)).toMatchObject({ sub: 'bob' });
    expect(tokens.cached(theirs)).toMatchObject({ sub: 'bob' });
  });

  test('happy: a token issued after the cut-off works, even in the same second', async () => {
    const { clock, tokens } = service();
    const before = await tokens.issue('alice', 'customer', 3600);
    clock.advance(400);
    tokens.setCutoff('alice', clock());
    clock.advance(100);
    const after = await tokens.issue('alice', 'customer', 3600);
    expect(await tokens.verify(before)).toBeNull();
    expect(await tokens.verify(after)).toMatchObject({ sub: 'alice' });
  });

  test("happy: 'all' refuses every token of the subject, minted later too; forgetting it restores them", async () => {
    const { tokens } = service();
    tokens.setCutoff('alice', 'all');
    const later = await tokens.issue('alice', 'employee', 3600);
    expect(await tokens.verify(later)).toBeNull();
    tokens.replaceCutoffs([]);
    expect(await tokens.verify(later)).toMatchObject({ sub: 'alice', aud: 'employee' });
  });

  test('error: a token without iat is refused when its subject has a cut-off, accepted otherwise', async () => {
    const { clock, tokens } = service();
    const exp = Math.floor(clock() / 1000) + 3600;
    const sign = (sub: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setAudience('customer')
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(SECRET));
    tokens.setCutoff('alice', clock() - 60_000);
    expect(await tokens.verify(await sign('alice'))).toBeNull();
    expect(await tokens.verify(await sign('bob'))).toMatchObject({ sub: 'bob' });
  });
});

/** Notices every `TokenCutoffs` on it hears, as Redis pub/sub would deliver them. */
function bus() {
  const listeners: ((message?: string) => void)[] = [];
  const notices: CutoffNotices = {
    announce: async (message) => {
      for (const listener of listeners) listener(message);
    },
    listen: (listener) => {
      listeners.push(listener);
    },
  };
  const reconnect = () => {
    for (const listener of listeners) listener();
  };
  return { notices, reconnect };
}

describe('token cut-offs across instances', () => {
  test('happy: a revocation on one instance is set on the other when heard', async () => {
    const { notices } = bus();
    const { clock, tokens: a } = service();
    const b = new TokenService(SECRET, clock);
    const cutoffsA = new TokenCutoffs(a, () => [], notices);
    new TokenCutoffs(b, () => [], notices);
    const token = await a.issue('alice', 'customer', 3600);
    expect(await b.verify(token)).toMatchObject({ sub: 'alice' });
    await cutoffsA.revoke('alice', clock());
    expect(await a.verify(token)).toBeNull();
    expect(b.cached(token)).toBeUndefined();
    expect(await b.verify(token)).toBeNull();
  });

  test('error: after a reconnection (notices possibly missed) everything is loaded again', async () => {
    const { notices, reconnect } = bus();
    const { clock, tokens } = service();
    const stored: [string, TokenCutoff][] = [];
    new TokenCutoffs(tokens, () => stored, notices);
    const token = await tokens.issue('alice', 'customer', 3600);
    stored.push(['alice', clock()]);
    expect(await tokens.verify(token)).toMatchObject({ sub: 'alice' });
    reconnect();
    expect(await tokens.verify(token)).toBeNull();
  });

  test('error: a revocation made while a load is in flight survives the load', async () => {
    const { clock, tokens } = service();
    let finish: (rows: [string, TokenCutoff][]) => void = () => {};
    const cutoffs = new TokenCutoffs(
      tokens,
      () => new Promise<[string, TokenCutoff][]>((resolve) => (finish = resolve)),
    );
    const loading = cutoffs.load();
    const token = await tokens.issue('alice', 'customer', 3600);
    await cutoffs.revoke('alice', clock());
    finish([]);
    await loading;
    expect(await tokens.verify(token)).toBeNull();
  });
});

describe('revocation on the fast lane', () => {
  test('happy: a cached token the fast lane answered is refused at once after sign-out everywhere', async () => {
    const ctx = await sqliteUnderTest.app();
    const session = await ctx.newUser();
    const staff = await ctx.tokenFor('staff', 'employee');
    const created = await ctx.request('POST', '/listings/properties', {
      token: staff,
      body: propertyBody({ ownerId: session.user.id }),
    });
    expect(created.status).toBe(201);
    const path = `/listings/properties/${created.headers.get('location')!.split('/').pop()}`;
    expect((await ctx.request('GET', path, { token: session.token })).status).toBe(200);
    const fast = ctx.lanes.fast;
    expect((await ctx.request('GET', path, { token: session.token })).status).toBe(200);
    expect(ctx.lanes.fast).toBe(fast + 1);
    const out = await ctx.request('DELETE', '/auth/sessions', { token: session.token });
    expect(out.status).toBe(204);
    const refused = await ctx.request('GET', path, { token: session.token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(problemOf(401));
    expect(ctx.lanes.fast).toBe(fast + 1);
  });

  test('happy: cut-offs stored before a start are loaded by it', async () => {
    const first = await sqliteUnderTest.app();
    const session = await first.newUser();
    expect((await first.request('DELETE', '/auth/sessions', { token: session.token })).status).toBe(
      204,
    );
    // A second app on the same database: a restarted server.
    const second = createTestApp({
      env: { JWT_SECRET: first.config.jwtSecret },
      clock: first.clock,
      stores: { accounts: first.deps.stores.accounts },
    });
    await second.deps.tokenCutoffs.load();
    const me = await second.request('GET', '/auth/me', { token: session.token });
    expect(me.status).toBe(401);
  });
});

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: a revocation on one instance reaches the others through Redis'),
  () => {
    test('another instance refuses the token once it hears the notice', async () => {
      const env = { ...redisEnv(), JWT_SECRET: SECRET };
      const a = await sqliteUnderTest.app({ env });
      const b = createTestApp({
        env,
        clock: a.clock,
        stores: { accounts: a.deps.stores.accounts },
      });
      const session = await a.newUser();
      expect((await b.request('GET', '/auth/me', { token: session.token })).status).toBe(200);
      const out = await a.request('DELETE', '/auth/sessions', { token: session.token });
      expect(out.status).toBe(204);
      // Pub/sub delivery crosses a socket: polled, bounded by attempts.
      let status = 200;
      for (let i = 0; i < 50 && status !== 401; i++) {
        if (i > 0) await Bun.sleep(20);
        status = (await b.request('GET', '/auth/me', { token: session.token })).status;
      }
      expect(status).toBe(401);
    });
  },
);
