/**
 * The usage figures behind the console's plots: counted per request, kept
 * per minute for a day and per hour for 30 days, surviving a restart,
 * summed across instances, read as JSON by employees (and by a customer
 * for itself). Runs on PostgreSQL too (TEST_DATABASE=postgres).
 */
import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { CustomerUsage } from '@/api/usage/routes';
import { RequestFigures } from '@/usage/schemas';
import { HOUR_MS, MINUTE_MS } from '@/usage/store';
import { expectAuthGuards } from '../support/auth-guards';
import { badRequest, createTestApp, manualClock, problemOf } from '../support/harness';

/** 10:00:30 UTC: half a minute into a minute, in the first minute of an hour. */
const START = Date.UTC(2026, 4, 1, 10, 0, 30);
const minuteOf = (t: number) => t - (t % MINUTE_MS);
const hourOf = (t: number) => t - (t % HOUR_MS);

type App = ReturnType<typeof createTestApp>;

async function figures(app: App, query = '') {
  const token = await app.tokenFor('ops', 'employee');
  const res = await app.request('GET', `/admin/usage/requests${query}`, { token });
  expect(res.status).toBe(200);
  return RequestFigures.parse(res.body);
}

const pointsOf = (body: RequestFigures, group: string) =>
  body.groups.find((entry) => entry.group === group)?.points ?? [];

describe('happy', () => {
  test('requests per route group per minute and per hour, with 5xx and p99', async () => {
    const clock = manualClock(START);
    const failing = () =>
      new Elysia({ name: 'failing' }).get('/failing', () => Promise.reject(new Error('probe')));
    const app = createTestApp({ clock, extraRoutes: failing });
    for (let i = 0; i < 3; i++) expect((await app.request('GET', '/health')).status).toBe(200);
    expect((await app.request('GET', '/failing')).status).toBe(500);
    expect((await app.request('GET', '/failing')).status).toBe(500);
    expect((await app.request('GET', '/listings/properties/unknown')).status).toBe(404);
    clock.advance(MINUTE_MS);
    expect((await app.request('GET', '/health')).status).toBe(200);

    const perMinute = await figures(app);
    expect(perMinute.resolution).toBe('minute');
    expect(perMinute.bucketMs).toBe(MINUTE_MS);
    const health = pointsOf(perMinute, '/health');
    expect(health.map(({ start, requests, errors }) => [start, requests, errors])).toEqual([
      [minuteOf(START), 3, 0],
      [minuteOf(START) + MINUTE_MS, 1, 0],
    ]);
    expect(health[0]!.p99Ms).toBeGreaterThan(0);
    expect(pointsOf(perMinute, '/listings').map((point) => point.requests)).toEqual([1]);
    const failed = pointsOf(perMinute, '/failing').map(({ requests, errors }) => [
      requests,
      errors,
    ]);
    expect(failed).toEqual([[2, 2]]);

    const perHour = await figures(app, '?resolution=hour&hours=24');
    expect(pointsOf(perHour, '/health').map(({ start, requests }) => [start, requests])).toEqual([
      [hourOf(START), 4],
    ]);
    // The first read itself was counted under /admin once it was answered.
    expect(pointsOf(perHour, '/admin')[0]!.requests).toBe(1);
  });

  test('a customer’s calls per hour, for employees and for the customer itself', async () => {
    const clock = manualClock(START);
    const app = createTestApp({ clock });
    const customer = await app.tokenFor('cust-1');
    for (let i = 0; i < 2; i++) {
      const res = await app.request('GET', '/api/v1/c/transactions', { token: customer });
      expect(res.status).toBe(200);
    }
    clock.advance(HOUR_MS);
    expect((await app.request('GET', '/api/v1/c/transactions', { token: customer })).status).toBe(
      200,
    );
    const staff = await app.tokenFor('ops', 'employee');
    const res = await app.request('GET', '/admin/usage/customers/cust-1', { token: staff });
    expect(res.status).toBe(200);
    const usage = CustomerUsage.parse(res.body);
    expect(usage.sub).toBe('cust-1');
    expect(usage.rate_limits.plan.slug).toBe('standard');
    expect(usage.rate_limits.limits.find((w) => w.window === 'minute')!.used).toBe(1);
    expect(usage.calls.points).toEqual([
      { start: hourOf(START), calls: 2 },
      { start: hourOf(START) + HOUR_MS, calls: 1 },
    ]);
    expect(usage.calls.to - usage.calls.from).toBe(167 * HOUR_MS);

    const own = await app.request('GET', '/auth/me/usage', { token: customer });
    expect(own.status).toBe(200);
    expect(CustomerUsage.parse(own.body)).toEqual(usage);
    // Another customer's figures are its own.
    const other = await app.request('GET', '/auth/me/usage', { token: await app.tokenFor('c2') });
    expect(CustomerUsage.parse(other.body).calls.points).toEqual([]);
  });

  test('figures survive a restart: a new service on the same database reads them', async () => {
    const clock = manualClock(START);
    const app = createTestApp({ clock });
    for (let i = 0; i < 2; i++) await app.request('GET', '/health');
    await app.deps.usage.flush();
    await app.closeDatabase();
    const again = createTestApp({ clock, databaseOf: app });
    expect(pointsOf(await figures(again), '/health').map((point) => point.requests)).toEqual([2]);
  });

  test('two instances on one database: each writes its own rows, a read sums them', async () => {
    const clock = manualClock(START);
    const first = createTestApp({ clock });
    const second = createTestApp({ clock, databaseOf: first });
    expect(first.deps.instance).not.toBe(second.deps.instance);
    for (let i = 0; i < 2; i++) await first.request('GET', '/health');
    for (let i = 0; i < 3; i++) await second.request('GET', '/health');
    await first.deps.usage.flush();
    await second.deps.usage.flush();
    // Flushing again writes the same totals, never adds them twice.
    await first.request('GET', '/health');
    await first.deps.usage.flush();
    await first.deps.usage.flush();
    expect(pointsOf(await figures(second), '/health').map((point) => point.requests)).toEqual([6]);
    expect(pointsOf(await figures(first), '/health').map((point) => point.requests)).toEqual([6]);
  });

  test('minutes are kept a day and hours 30 days: older buckets are deleted', async () => {
    const clock = manualClock(START);
    const app = createTestApp({ clock });
    await app.request('GET', '/health');
    await app.deps.usage.flush();
    clock.advance(24 * HOUR_MS + MINUTE_MS);
    await app.request('GET', '/account');
    await app.deps.usage.flush();
    const store = app.deps.usage.store;
    const minutes = await store.read({ resolution: 'minute', from: 0, filter: { prefix: '' } });
    expect(minutes.map((row) => row.series).sort()).toEqual(['route:/account']);
    const hours = await store.read({ resolution: 'hour', from: 0, filter: { prefix: '' } });
    expect(hours.map((row) => row.series).sort()).toEqual(['route:/account', 'route:/health']);

    clock.advance(30 * 24 * HOUR_MS);
    await app.request('GET', '/docs/json');
    await app.deps.usage.flush();
    const kept = await store.read({ resolution: 'hour', from: 0, filter: { prefix: '' } });
    expect(kept.map((row) => row.series)).toEqual(['route:/docs']);
  });
});

describe('error', () => {
  test.each([
    ['?resolution=day', 'resolution', 'must be minute or hour (got "day")'],
    ['?hours=0', 'hours', 'must be at least 1 (got "0")'],
    ['?hours=721', 'hours', 'must be at most 720 (got "721")'],
    ['?hours=1.5', 'hours', 'must be an integer (got "1.5")'],
    ['?hours=1&hours=2', 'hours', 'is given more than once'],
    ['?since=0', 'since', 'is not a parameter of this operation'],
  ])('GET /admin/usage/requests%s is a 400 problem naming %s', async (query, name, reason) => {
    const app = createTestApp();
    const token = await app.tokenFor('ops', 'employee');
    const res = await app.request('GET', `/admin/usage/requests${query}`, { token });
    expect([res.status, res.body]).toEqual([400, badRequest([name, reason])]);
  });

  test('GET /auth/me/usage?hours=0 is a 400 problem', async () => {
    const app = createTestApp();
    const res = await app.request('GET', '/auth/me/usage?hours=0', {
      token: await app.tokenFor('c1'),
    });
    expect([res.status, res.body]).toEqual([
      400,
      badRequest(['hours', 'must be at least 1 (got "0")']),
    ]);
  });
});

describe('auth', () => {
  test.each(['/admin/usage/requests', '/admin/usage/customers/c1'])(
    '%s: anonymous 401, a customer 403',
    async (path) => expectAuthGuards(createTestApp(), 'employee', [`GET ${path}`]),
  );

  test('/auth/me/usage: anonymous 401', async () => {
    const app = createTestApp();
    const res = await app.request('GET', '/auth/me/usage');
    expect([res.status, res.body]).toEqual([401, problemOf(401)]);
  });
});
