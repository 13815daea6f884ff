import { beforeAll, describe, expect, test } from 'bun:test';
import { fastCustomerReads } from '@/api/customer/fast-read';
import { manualClock } from '../support/harness';
import { expectSameAnswers, type LaneCase, lanesOf } from '../support/lanes';
import { ANSWERS_WITHOUT_PROMISE, sqliteOnly } from '../support/postgres-mode';
import { redisEnv, redisSkipReason, redisTitle } from '../support/redis';
import { postgresUnderTest, type StoreUnderTest, sqliteUnderTest } from './stores';

const LIST = '/api/v1/c/transactions';
const LIMITS = '/api/v1/tokens/limits';
/** Headers that count the requests themselves: one more request, one less remaining. */
const COUNTING = ['ratelimit', 'x-ratelimit-remaining'];

/** The limiter store's variables of the suite running: none (in-process) or a Redis of its own prefix. */
let storeEnv: () => Record<string, string> = () => ({});
/** The customer store of the suite running. */
let customerStore: StoreUnderTest = sqliteUnderTest;

async function context(env: Record<string, string> = {}) {
  const ctx = await customerStore.app({ env: { ...storeEnv(), ...env }, clock: manualClock() });
  for (let i = 0; i < 20; i++) {
    await ctx.makeTransaction({
      customerId: i % 2 ? 'customer-1' : 'customer-2',
      bookingId: `B-${i}`,
      payDate: `2026-0${1 + (i % 9)}-1${i % 10}`,
    });
  }
  const bearer = async (sub: string, aud: 'customer' | 'employee' = 'customer') => ({
    authorization: `Bearer ${await ctx.tokenFor(sub, aud)}`,
  });
  return {
    ...ctx,
    customer: await bearer('customer-1'),
    employee: await bearer('emp-1', 'employee'),
  };
}

const remainingOf = async (response: Response | Promise<Response>) =>
  Number((await response).headers.get('x-ratelimit-remaining'));

/** The same lanes and answers whichever store holds the windows (a shared one is awaited). */
function fastLaneTests() {
  test('tokens/limits in the fast lane looks at the windows once, for the body and the headers', async () => {
    const ctx = await context();
    const request = () =>
      ctx.fetch(new Request(`http://localhost${LIMITS}`, { headers: ctx.customer }));
    // The first request verifies the token in the full pipeline; the second is a fast one.
    expect((await request()).status).toBe(200);
    const { limiter } = ctx.deps;
    const peek = limiter.peek.bind(limiter);
    let peeks = 0;
    limiter.peek = (key) => {
      peeks++;
      return peek(key);
    };
    const fastBefore = ctx.lanes.fast;
    const res = await request();
    expect(res.status).toBe(200);
    expect(ctx.lanes.fast).toBe(fastBefore + 1);
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    expect(peeks).toBe(1);
  });

  test('a polled tokens/limits answer is made once and sent again until what it shows moves', async () => {
    const ctx = await context();
    const { limiter } = ctx.deps;
    const request = async (path = LIMITS) => {
      const res = await ctx.fetch(
        new Request(`http://localhost${path}`, { headers: ctx.customer }),
      );
      expect(res.status).toBe(200);
      const headers = Object.fromEntries(res.headers);
      delete headers['x-request-id'];
      return { headers, body: await res.json() };
    };
    await request(); // verifies the token in the full pipeline
    const first = await request();
    const hits = limiter.reportMemoHits;
    expect(await request()).toEqual(first);
    expect(limiter.reportMemoHits).toBe(hits + 1);

    // A second later the idle window's reset moves on: made again.
    ctx.clock.advance(1000);
    const later = await request();
    expect(limiter.reportMemoHits).toBe(hits + 1);
    expect(later.body.rate_limits.limits[0].resets_at).not.toBe(
      first.body.rate_limits.limits[0].resets_at,
    );

    // A counted request changes the use: the next report shows it at once.
    await request(LIST);
    const counted = await request();
    expect(limiter.reportMemoHits).toBe(hits + 1);
    expect(counted.body.rate_limits.limits[0].used).toBe(1);
    expect(counted.headers['x-ratelimit-remaining']).toBe(
      String(Number(later.headers['x-ratelimit-remaining']) - 1),
    );
  });

  test('answer 200 in the fast lane, and 400, 401 and 422 in the full pipeline, byte for byte the same', async () => {
    const ctx = await context({ RATE_LIMIT_CUSTOMER_PER_MINUTE: '100000' });
    const cases: LaneCase[] = [
      [LIMITS, ctx.customer],
      [LIMITS, ctx.employee],
      [`${LIMITS}?x=1`, ctx.customer],
      [LIMITS, {}],
      [LIMITS, { authorization: 'Bearer nope' }],
      [LIST, ctx.customer],
      [`${LIST}?per_page=3&page=2`, ctx.customer],
      [`${LIST}?pay_date_from=2026-03-01&pay_date_to=2026-06-30`, ctx.customer],
      [`${LIST}?customer_id=customer-2&amount_from=0`, ctx.employee],
      [`${LIST}?customer_id=customer-2`, ctx.customer],
      [`${LIST}?booking_id=B-3`, ctx.customer],
      [`${LIST}?booking_id=B%2D3`, ctx.customer],
      [`${LIST}?page=1&page=2`, ctx.customer],
      [`${LIST}?per_page=0`, ctx.customer],
      [`${LIST}?pay_date_from=2026-13-01`, ctx.customer],
      [`${LIST}?pay_date_from=2026-05-01&pay_date_to=2026-04-01`, ctx.customer],
      [`${LIST}?unknown=1&&`, ctx.customer],
      [LIST, {}],
      [LIST, { cookie: 'session=unknown' }],
    ];
    const answers = await expectSameAnswers(ctx, cases, COUNTING);
    expect(lanesOf(answers)).toEqual([
      ...['200 fast', '200 fast', '200 full', '401 full', '401 full'],
      ...['200 fast', '200 fast', '200 fast', '200 fast', '200 fast', '200 fast', '200 fast'],
      ...['400 full', '422 full', '422 full', '422 full', '200 fast', '401 full', '401 full'],
    ]);
    expect(JSON.parse(answers[6]!.body).pagination).toMatchObject({ per_page: 3, current_page: 2 });
  });

  test('each request is counted once, whichever lane answers it', async () => {
    const ctx = await context({ RATE_LIMIT_CUSTOMER_PER_MINUTE: '10' });
    const get = (path: string) =>
      ctx.fetch(new Request(`http://localhost${path}`, { headers: ctx.customer }));
    // The first call verifies the token in the full pipeline; the rest are fast.
    expect(await remainingOf(get(LIST))).toBe(9);
    expect(await remainingOf(get(LIST))).toBe(8);
    expect(await remainingOf(get(`${LIST}?per_page=0`))).toBe(7);
    expect(await remainingOf(get(LIMITS))).toBe(7);
    expect(await remainingOf(get(`${LIST}?page=2`))).toBe(6);
    expect(ctx.lanes.fast).toBe(3);
  });

  test('the request over the limit gets the full pipeline 429, and is not counted', async () => {
    const ctx = await context({ RATE_LIMIT_CUSTOMER_PER_MINUTE: '2' });
    const get = (path: string) =>
      ctx.fetch(new Request(`http://localhost${path}`, { headers: ctx.customer }));
    expect((await get(LIST)).status).toBe(200);
    expect((await get(LIST)).status).toBe(200);
    const refused = await get(LIST);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({
      rate_limit: { window: 'minute', limit: 2, used: 2 },
    });
    const limits = await (await get(LIMITS)).json();
    expect(limits.rate_limits.limits[0]).toMatchObject({ limit: 2, used: 2, remaining: 0 });
    // The second read and tokens/limits were fast; the refused one was not.
    expect(ctx.lanes.fast).toBe(2);
  });

  test('with the limiter off, no rate-limit headers and the same answers', async () => {
    const ctx = await context({ RATE_LIMITS: 'off' });
    const answers = await expectSameAnswers(ctx, [
      [LIMITS, ctx.customer],
      [LIST, ctx.customer],
    ]);
    expect(lanesOf(answers)).toEqual(['200 fast', '200 fast']);
    expect(answers.every((answer) => !('ratelimit' in answer.headers))).toBe(true);
  });

  test('with CORS on, a request naming an Origin is answered by the full pipeline', async () => {
    const ctx = await context({ CORS_ORIGINS: 'https://app.example' });
    const answers = await expectSameAnswers(
      ctx,
      [
        [LIST, { ...ctx.customer, origin: 'https://app.example' }],
        [LIMITS, { ...ctx.customer, origin: 'https://app.example' }],
        [LIST, ctx.customer],
      ],
      COUNTING,
    );
    expect(lanesOf(answers)).toEqual(['200 full', '200 full', '200 fast']);
    expect(answers[0]!.headers['access-control-allow-origin']).toBe('https://app.example');
  });
}

const stores = [
  { title: 'in-process store', env: () => ({}), skip: false },
  { title: redisTitle('Redis store'), env: redisEnv, skip: redisSkipReason !== undefined },
];
describe('customer API reads: fast lane', () => {
  for (const store of stores) {
    describe.skipIf(store.skip)(store.title, () => {
      beforeAll(() => {
        storeEnv = store.env;
        customerStore = sqliteUnderTest;
      });
      fastLaneTests();
    });
  }

  sqliteOnly.test(
    ANSWERS_WITHOUT_PROMISE,
    'on SQLite, a page of transactions is answered without waiting for anything',
    async () => {
      customerStore = sqliteUnderTest;
      storeEnv = () => ({});
      const ctx = await context();
      const request = () => new Request(`http://localhost${LIST}`, { headers: ctx.customer });
      // The first request verifies the token in the full pipeline.
      expect((await ctx.fetch(request())).status).toBe(200);
      const answer = fastCustomerReads(ctx.deps).answer(request(), 'c/transactions', '');
      expect(answer).not.toBeInstanceOf(Promise);
      expect(answer).toMatchObject({ status: 200 });
    },
  );

  // The same lanes and answers with the transactions, plans and calendar usage in PostgreSQL.
  const postgres = postgresUnderTest();
  postgres.describe('in-process store, the customer store', () => {
    beforeAll(() => {
      storeEnv = () => ({});
      customerStore = postgres;
    });
    fastLaneTests();
  });
});
