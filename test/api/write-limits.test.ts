import { describe, expect, test } from 'bun:test';
import { MemoryStore } from '@/rate-limit/memory-store';
import { RedisRateLimitStore } from '@/rate-limit/redis-store';
import type { RateLimitStore, WindowRule } from '@/rate-limit/store';
import { sqliteUnderTest } from '../accounts/stores';
import { ORIGIN } from '../accounts/support';
import { countRows, OWNER, propertyBody } from '../listings/support';
import { createTestApp, manualClock, problemOf, type TestContext } from '../support/harness';
import { redisEnv, redisSkipReason, redisTitle, testConnection } from '../support/redis';

const CREATE = '/listings/properties';
const SECRET = 'a-shared-secret-of-at-least-32-characters';

/** The 429 of a used-up write budget (docs/request-pipeline.md). */
const writeLimited = (limit: number, seconds: number) =>
  problemOf(
    429,
    `Too many writes: at most ${limit} a minute for this caller; retry in ${seconds} seconds`,
  );

const headersOf = (res: { headers: Headers }) => ({
  'retry-after': res.headers.get('retry-after'),
  'ratelimit-policy': res.headers.get('ratelimit-policy'),
  ratelimit: res.headers.get('ratelimit'),
  'x-ratelimit-limit': res.headers.get('x-ratelimit-limit'),
  'x-ratelimit-remaining': res.headers.get('x-ratelimit-remaining'),
  'x-ratelimit-reset': res.headers.get('x-ratelimit-reset'),
});

function app(env: Record<string, string> = {}, clock = manualClock()) {
  return createTestApp({ env: { JWT_SECRET: SECRET, ...env }, clock });
}

const create = (ctx: TestContext, token: string, overrides: Record<string, unknown> = {}) =>
  ctx.request('POST', CREATE, { token, body: propertyBody(overrides) });

/** What a refused write must not have stored. */
async function stored(ctx: TestContext) {
  const tables = ['properties', 'units', 'idempotency_keys', 'events'];
  return Object.fromEntries(
    await Promise.all(tables.map(async (table) => [table, await countRows(ctx, table)])),
  );
}

describe('write limits', () => {
  describe('happy: a customer', () => {
    test('writes within the budget carry its headers; the next is 429 and stores nothing', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '3' });
      const token = await ctx.tokenFor(OWNER);
      const reset = String(Math.ceil((ctx.clock() + 60_000) / 1000));
      for (const remaining of [2, 1, 0]) {
        const res = await create(ctx, token);
        expect(res.status).toBe(201);
        expect(headersOf(res)).toEqual({
          'retry-after': null,
          'ratelimit-policy': '3;w=60',
          ratelimit: `limit=3, remaining=${remaining}, reset=60`,
          'x-ratelimit-limit': '3',
          'x-ratelimit-remaining': String(remaining),
          'x-ratelimit-reset': reset,
        });
      }
      const before = await stored(ctx);
      ctx.clock.advance(15_000);
      const refused = await ctx.request('POST', CREATE, {
        token,
        body: propertyBody(),
        headers: { 'idempotency-key': 'refused-1' },
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.body).toEqual(writeLimited(3, 45));
      expect(headersOf(refused)).toEqual({
        'retry-after': '45',
        'ratelimit-policy': '3;w=60',
        ratelimit: 'limit=3, remaining=0, reset=45',
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': reset,
      });
      expect(await stored(ctx)).toEqual(before);

      // 60 s after the three writes they leave the window; the refused one never entered it.
      ctx.clock.advance(45_000);
      const again = [];
      for (let i = 0; i < 4; i++) again.push((await create(ctx, token)).status);
      expect(again).toEqual([201, 201, 201, 429]);
    });

    test('a replay of an Idempotency-Key past the budget waits like any write', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '1' });
      const token = await ctx.tokenFor(OWNER);
      const keyed = () =>
        ctx.request('POST', CREATE, {
          token,
          body: propertyBody(),
          headers: { 'idempotency-key': 'replay-1' },
        });
      expect((await keyed()).status).toBe(201);
      const refused = await keyed();
      expect([refused.status, refused.headers.get('idempotent-replayed')]).toEqual([429, null]);
      ctx.clock.advance(60_000);
      const replayed = await keyed();
      expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
      expect(await countRows(ctx, 'properties')).toBe(1);
    });

    test('every kind of write counts against the one budget', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '3' });
      const token = await ctx.tokenFor(OWNER);
      const id = (await create(ctx, token)).headers.get('location')!.split('/').pop()!;
      const information = { isVisitable: true, yearOfConstruction: 1990 };
      const put = await ctx.request('PUT', `${CREATE}/${id}/information`, {
        token,
        body: information,
      });
      expect(put.status).toBe(204);
      const unit = await ctx.request('POST', `${CREATE}/${id}/units`, { token, body: {} });
      expect(unit.status).toBe(201);
      const refused = await ctx.request('DELETE', `${CREATE}/${id}`, { token });
      expect(refused.status).toBe(429);
      expect((await ctx.request<{ archived: boolean }>('GET', `${CREATE}/${id}`)).status).toBe(200);
      const revoke = await ctx.request('DELETE', '/auth/sessions/unknown', { token });
      expect(revoke.status).toBe(429);
    });

    test("another customer's budget is untouched", async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '1' });
      expect((await create(ctx, await ctx.tokenFor(OWNER))).status).toBe(201);
      expect((await create(ctx, await ctx.tokenFor(OWNER))).status).toBe(429);
      const other = await ctx.tokenFor('owner-2');
      expect((await create(ctx, other, { ownerId: 'owner-2' })).status).toBe(201);
    });

    test("writes and the customer API's requests use separate windows", async () => {
      const ctx = app({
        RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '2',
        RATE_LIMIT_CUSTOMER_PER_MINUTE: '2',
      });
      const token = await ctx.tokenFor(OWNER);
      const transactions = () => ctx.request('GET', '/api/v1/c/transactions', { token });
      for (let i = 0; i < 2; i++) expect((await create(ctx, token)).status).toBe(201);
      expect((await create(ctx, token)).status).toBe(429);
      const read = await transactions();
      expect(read.status).toBe(200);
      expect(read.headers.get('ratelimit')).toBe('limit=2, remaining=1, reset=60');
      expect((await transactions()).status).toBe(200);
      expect((await transactions()).status).toBe(429);
      ctx.clock.advance(60_000);
      expect((await transactions()).status).toBe(200);
      expect((await transactions()).status).toBe(200);
      expect((await create(ctx, token)).status).toBe(201);
    });

    test('a session cookie counts against its account, as its token does', async () => {
      const setup = await sqliteUnderTest.app({
        env: { RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '2' },
      });
      const session = await setup.newUser();
      const body = propertyBody({ ownerId: session.user.id });
      const viaCookie = () =>
        setup.request('POST', CREATE, {
          body,
          headers: { cookie: session.cookie, origin: ORIGIN },
        });
      expect((await viaCookie()).status).toBe(201);
      const viaToken = await setup.request('POST', CREATE, { token: session.token, body });
      expect(viaToken.headers.get('ratelimit')).toBe('limit=2, remaining=0, reset=60');
      expect((await viaCookie()).status).toBe(429);
    });
  });

  describe('happy: batches count what they write', () => {
    test('a create counts its units; one that does not fit is refused whole', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '10' });
      const token = await ctx.tokenFor(OWNER);
      const four = await create(ctx, token, { totalUnits: 4 });
      expect(four.status).toBe(201);
      expect(four.headers.get('ratelimit')).toBe('limit=10, remaining=6, reset=60');
      ctx.clock.advance(10_000);
      const before = await stored(ctx);
      const seven = await create(ctx, token, { totalUnits: 7 });
      expect(seven.status).toBe(429);
      // Room for 7 comes when the 4 written first leave the window.
      expect(seven.body).toEqual(writeLimited(10, 50));
      expect(seven.headers.get('retry-after')).toBe('50');
      expect(seven.headers.get('ratelimit')).toBe('limit=10, remaining=6, reset=50');
      expect(await stored(ctx)).toEqual(before);
      const six = await create(ctx, token, { totalUnits: 6 });
      expect(six.status).toBe(201);
      expect(six.headers.get('ratelimit')).toBe('limit=10, remaining=0, reset=50');
    });

    test('a batch above the whole budget counts as the budget, in an empty window only', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '5' });
      const token = await ctx.tokenFor(OWNER);
      const big = await create(ctx, token, { totalUnits: 30 });
      expect(big.status).toBe(201);
      expect(big.headers.get('ratelimit')).toBe('limit=5, remaining=0, reset=60');
      expect(await countRows(ctx, 'units')).toBe(30);
      ctx.clock.advance(60_000);
      expect((await create(ctx, token)).status).toBe(201);
      expect((await create(ctx, token, { totalUnits: 30 })).status).toBe(429);
    });

    test('the public create counts its units too', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '10' });
      const token = await ctx.tokenFor(OWNER);
      const body = propertyBody({ totalUnits: 8, rentableUnits: 8 });
      const first = await ctx.request('POST', '/listings/public/properties', { token, body });
      expect(first.headers.get('ratelimit')).toBe('limit=10, remaining=2, reset=60');
      const second = await ctx.request('POST', '/listings/public/properties', { token, body });
      expect(second.status).toBe(429);
    });
  });

  describe('happy: an employee', () => {
    test('its budget is RATE_LIMIT_EMPLOYEE_PER_MINUTE unless set higher, never lower', async () => {
      const cases: [Record<string, string>, number][] = [
        [{}, 5000],
        [{ RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100' }, 5000],
        [{ RATE_LIMIT_EMPLOYEE_PER_MINUTE: '2500' }, 2500],
        [{ RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '7000' }, 7000],
      ];
      for (const [env, limit] of cases) {
        const ctx = app(env);
        const token = await ctx.tokenFor('employee-1', 'employee');
        const res = await create(ctx, token);
        expect([res.status, res.headers.get('ratelimit-policy')]).toEqual([201, `${limit};w=60`]);
      }
    });

    test('past its budget an employee gets the 429 too', async () => {
      const ctx = app();
      const token = await ctx.tokenFor('employee-1', 'employee');
      // Fill the window as 5000 writes would (the same key and store as the route).
      const caller = { sub: 'employee-1', aud: 'employee' as const };
      expect((await ctx.deps.writeLimiter.charge(caller, 4999)).admitted).toBe(true);
      const last = await create(ctx, token);
      expect(last.status).toBe(201);
      expect(last.headers.get('ratelimit')).toBe('limit=5000, remaining=0, reset=60');
      const refused = await ctx.request('PUT', '/content/static-pages/about', {
        token,
        body: { language: 'en', title: 'About', content: 'Who we are.', published: true },
      });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(writeLimited(5000, 60));
      expect(await countRows(ctx, 'static_pages')).toBe(0);
    });
  });

  describe('happy: what is not counted', () => {
    test('a refused credential, a refused body and the exempt routes', async () => {
      const ctx = app({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '1' });
      const token = await ctx.tokenFor(OWNER);
      const anonymous = await ctx.request('POST', CREATE, { body: propertyBody() });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('ratelimit')).toBeNull();
      const bad = await ctx.request('POST', CREATE, { token, body: { type: 'castle' } });
      expect(bad.status).toBe(422);
      expect(bad.headers.get('ratelimit')).toBeNull();
      const counted = await create(ctx, token);
      expect(counted.status).toBe(201);
      expect(counted.headers.get('ratelimit')).toBe('limit=1, remaining=0, reset=60');
      // Exempt: answered while the budget is used up.
      const signOut = await ctx.request('POST', '/auth/sign-out', { token });
      expect(signOut.status).toBe(204);
      expect((await create(ctx, token)).status).toBe(429);
    });

    test('RATE_LIMITS=off: no count, no headers, no 429, no 429 in the document', async () => {
      const ctx = app({ RATE_LIMITS: 'off', RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '1' });
      const token = await ctx.tokenFor(OWNER);
      for (let i = 0; i < 3; i++) {
        const res = await create(ctx, token);
        expect([res.status, res.headers.get('ratelimit')]).toEqual([201, null]);
      }
      const document = await ctx.request<OpenApi>('GET', '/docs/json');
      expect(document.body.paths[CREATE]!.post!.responses['429']).toBeUndefined();
    });
  });

  describe('the OpenAPI document', () => {
    test('every write outside /api/v1 lists the 429 with its headers, or says why it is exempt', async () => {
      const ctx = app();
      const document = (await ctx.request<OpenApi>('GET', '/docs/json')).body;
      const limited: string[] = [];
      const exempt: Record<string, string> = {};
      for (const [path, item] of Object.entries(document.paths)) {
        if (path.startsWith('/api/v1')) continue;
        for (const [method, operation] of Object.entries(item)) {
          if (method === 'get' || method === 'head') continue;
          const name = `${method.toUpperCase()} ${path}`;
          const reason = operation['x-write-limit-exempt'];
          if (typeof reason === 'string' && reason.length > 10) {
            exempt[name] = reason;
            continue;
          }
          expect([name, operation.responses['429']]).toEqual([
            name,
            { $ref: '#/components/responses/WriteLimited' },
          ]);
          for (const [status, response] of Object.entries(operation.responses)) {
            if (Number(status) >= 300 || !response.headers) continue;
            expect([name, Object.keys(response.headers)]).toEqual([
              name,
              expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Remaining']),
            ]);
          }
          limited.push(name);
        }
      }
      expect(Object.keys(exempt).sort()).toEqual([
        'POST /auth/email/confirm',
        'POST /auth/passkey/authenticate',
        'POST /auth/passkey/authenticate/options',
        'POST /auth/password-reset',
        'POST /auth/password-reset/confirm',
        'POST /auth/sign-in',
        'POST /auth/sign-out',
        'POST /auth/sign-up',
      ]);
      expect(limited.length).toBe(38);
      const response = document.components.responses.WriteLimited!;
      expect(Object.keys(response.headers!).sort()).toEqual([
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Request-Id',
      ]);
      expect(response.content).toEqual({
        'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
      });
    });
  });
});

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
        'x-write-limit-exempt'?: unknown;
      }
    >
  >;
  components: {
    responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }>;
  };
}

/** The cost of a hit, in each store the limiter counts in. */
function costTests(storeOf: () => RateLimitStore) {
  const rules: WindowRule[] = [{ kind: 'minute', limit: 10 }];
  const start = Date.UTC(2026, 10, 22, 12, 0, 0);

  test('a hit of cost N records N, or nothing with when N fits', async () => {
    const store = storeOf();
    const key = `w:c:${crypto.randomUUID()}`;
    expect((await store.hit(key, rules, start, 4)).windows[0]!.used).toBe(4);
    expect((await store.hit(key, rules, start + 5_000, 3)).windows[0]!.used).toBe(7);
    const refused = await store.hit(key, rules, start + 20_000, 6);
    expect(refused).toEqual({
      admitted: false,
      windows: [{ kind: 'minute', limit: 10, used: 7, resetAt: start + 60_000 }],
      // 3 must leave: the 4 of the first hit are enough.
      fitsAt: start + 60_000,
    });
    const later = await store.hit(key, rules, start + 20_000, 10);
    expect(later.fitsAt).toBe(start + 65_000);
    expect((await store.hit(key, rules, start + 20_000, 3)).windows[0]!.used).toBe(10);
  });
}

describe('happy: the in-process store counts a cost', () => costTests(() => new MemoryStore()));

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: the Redis store counts a cost'),
  () => costTests(() => new RedisRateLimitStore(testConnection())),
);

describe.skipIf(redisSkipReason !== undefined)(
  redisTitle('happy: two instances share one write budget through Redis'),
  () => {
    test('writes on either instance count once; a batch is refused on both', async () => {
      const env = { ...redisEnv(), RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '5' };
      const clock = manualClock();
      const first = app(env, clock);
      const second = app(env, clock);
      const token = await first.tokenFor(OWNER);
      expect((await create(first, token, { totalUnits: 2 })).status).toBe(201);
      const other = await create(second, token, { totalUnits: 2 });
      expect(other.status).toBe(201);
      expect(other.headers.get('ratelimit')).toBe('limit=5, remaining=1, reset=60');
      clock.advance(30_000);
      const before = await stored(first);
      const refused = await create(first, token, { totalUnits: 2 });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(writeLimited(5, 30));
      expect(await stored(first)).toEqual(before);
      expect((await create(second, token)).status).toBe(201);
      expect((await create(first, token)).status).toBe(429);
    });
  },
);
