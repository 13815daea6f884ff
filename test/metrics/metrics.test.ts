import { describe, expect, test } from 'bun:test';
import { PROBLEMS_ONLY } from '@/api/error-family';
import { withFastLane } from '@/api/fast-lane';
import { CONTENT_TYPE, Exposition, escapeLabelValue } from '@/api/metrics/exposition';
import { RequestMetrics, UNMATCHED } from '@/api/request/metrics';
import { parseConfig } from '@/config';
import { createLogger } from '@/logger';
import { outboxRowOf } from '@/mail/operations';
import { addPage } from '../content/factory';
import { propertyBody } from '../listings/support';
import { expectCustomerRefused } from '../support/auth-guards';
import { BASE, createTestApp, manualClock, problemOf } from '../support/harness';
import { laneSnapshot } from '../support/lanes';
import {
  BACKUPS_COPY_THE_FILE,
  onPostgres,
  READ_CACHE,
  sqliteOnly,
} from '../support/postgres-mode';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789abcdef';

/** `name{labels}` → value, from the exposition text. */
function samples(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    map.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return map;
}

async function scrape(ctx: ReturnType<typeof createTestApp>, token: string) {
  const res = await ctx.request('GET', '/metrics', { token });
  expect(res.status).toBe(200);
  return samples(res.text);
}

describe('the exposition format', () => {
  test('HELP/TYPE once per family, escaped label values, cumulative histogram buckets', () => {
    const out = new Exposition()
      .family('demo_total', 'counter', 'A help text with \\ and\na newline.')
      .sample('demo_total', { path: 'a"b\\c\nd' }, 3)
      .sample('demo_total', undefined, Number.NaN)
      .family('demo_seconds', 'histogram', 'Latency.')
      .histogram('demo_seconds', { route: '/x' }, [0.1, 1], [2, 0, 1], 1.75);
    expect(out.text()).toBe(
      [
        '# HELP demo_total A help text with \\\\ and\\na newline.',
        '# TYPE demo_total counter',
        'demo_total{path="a\\"b\\\\c\\nd"} 3',
        'demo_total NaN',
        '# HELP demo_seconds Latency.',
        '# TYPE demo_seconds histogram',
        'demo_seconds_bucket{route="/x",le="0.1"} 2',
        'demo_seconds_bucket{route="/x",le="1"} 2',
        'demo_seconds_bucket{route="/x",le="+Inf"} 3',
        'demo_seconds_sum{route="/x"} 1.75',
        'demo_seconds_count{route="/x"} 3',
        '',
      ].join('\n'),
    );
    expect(escapeLabelValue('plain')).toBe('plain');
  });

  test('a family written twice or a bad name is a programming error', () => {
    const out = new Exposition().family('x_total', 'counter', 'x');
    expect(() => out.family('x_total', 'counter', 'x')).toThrow('written twice');
    expect(() => out.family('1bad', 'gauge', 'x')).toThrow('bad metric name');
    expect(() => out.sample('x_total', { 'bad-label': 1 }, 1)).toThrow('bad label name');
  });

  test('route templates: literal segments win over parameters; unknown paths share one label', () => {
    const metrics = new RequestMetrics();
    metrics.useRoutes([
      { method: 'GET', path: '/listings/properties' },
      { method: 'GET', path: '/listings/properties/:id' },
      { method: 'GET', path: '/listings/properties/:id/units/:unitId' },
      { method: 'POST', path: '/listings/properties/additional-data' },
      { method: 'GET', path: '/' },
      { method: 'GET', path: '/files/*' },
    ]);
    expect(metrics.templateOf('/listings/properties/abc')).toBe('/listings/properties/:id');
    expect(metrics.templateOf('/listings/properties/additional-data')).toBe(
      '/listings/properties/additional-data',
    );
    expect(metrics.templateOf('/listings/properties/a/units/b')).toBe(
      '/listings/properties/:id/units/:unitId',
    );
    expect(metrics.templateOf('/listings/properties/')).toBe('/listings/properties');
    expect(metrics.templateOf('/')).toBe('/');
    expect(metrics.templateOf('/listings/properties/a/units')).toBe(UNMATCHED);
    expect(metrics.templateOf('/nope/../etc')).toBe(UNMATCHED);
    expect(metrics.templateOf('/files/x')).toBe(UNMATCHED);
  });
});

describe('happy', () => {
  test('an employee reads text/plain metrics; request counters and the histogram move', async () => {
    const ctx = createTestApp();
    const token = await ctx.tokenFor('ops', 'employee');
    const before = await scrape(ctx, token);
    await ctx.request('GET', '/health');
    await ctx.request('GET', '/health');
    await ctx.request('GET', '/listings/properties/no-such-id', { token });
    await ctx.request('GET', '/no/such/route');
    const res = await ctx.request('GET', '/metrics', { token });
    expect(res.headers.get('content-type')).toBe(CONTENT_TYPE);
    const after = samples(res.text);
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta('http_requests_total{method="GET",route="/health",status="200"}')).toBe(2);
    expect(delta('http_request_duration_seconds_count{method="GET",route="/health"}')).toBe(2);
    expect(
      delta('http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"}'),
    ).toBe(2);
    expect(
      delta('http_requests_total{method="GET",route="/listings/properties/:id",status="404"}'),
    ).toBe(1);
    expect(delta(`http_requests_total{method="GET",route="${UNMATCHED}",status="404"}`)).toBe(1);
    expect(delta('http_requests_total{method="GET",route="/metrics",status="200"}')).toBe(1);
    // The SQLite file and its WAL; on PostgreSQL the database's size, and no WAL of its own.
    expect(after.get('listings_database_size_bytes')).toBeGreaterThan(onPostgres ? 1_000_000 : 0);
    expect(after.has('listings_database_wal_size_bytes')).toBe(!onPostgres);
  });

  test('a fast-lane read is counted under its route template', async () => {
    const ctx = createTestApp();
    const token = await ctx.tokenFor('ops', 'employee');
    await ctx.request('GET', '/content/static-pages/');
    await ctx.request('GET', '/content/static-pages/');
    const after = await scrape(ctx, token);
    const counted = [...after].filter(([key]) =>
      key.startsWith('http_requests_total{method="GET",route="/content/static-pages'),
    );
    expect(counted.reduce((sum, [, value]) => sum + value, 0)).toBe(2);
  });

  test('the fast lane feeds the same counters as the full pipeline', async () => {
    const metrics = new RequestMetrics();
    metrics.useRoutes([{ method: 'GET', path: '/fast/:id' }]);
    const handle = withFastLane(
      [{ prefix: '/fast/', answer: () => ({ status: 200, body: 'ok', headers: {} }) }],
      () => {
        throw new Error('the full pipeline was not meant to run');
      },
      { logger: createLogger('silent'), corsOrigins: [], metrics, errorFamilyOf: PROBLEMS_ONLY },
    );
    expect((await handle(new Request('http://localhost/fast/1'))).status).toBe(200);
    expect((await handle(new Request('http://localhost/fast/2'))).status).toBe(200);
    const out = new Exposition();
    metrics.write(out);
    const counted = samples(out.text());
    expect(counted.get('http_requests_total{method="GET",route="/fast/:id",status="200"}')).toBe(2);
    expect(counted.get('http_request_duration_seconds_count{method="GET",route="/fast/:id"}')).toBe(
      2,
    );
  });

  test('each fast route counts its requests under the template the full pipeline uses', async () => {
    const ctx = createTestApp();
    const employee = await ctx.tokenFor('ops', 'employee');
    const customer = await ctx.tokenFor('c1', 'customer');
    await addPage(ctx, 'about');
    const created = await ctx.request('POST', '/listings/properties', {
      token: employee,
      body: propertyBody(),
    });
    const id = created.headers.get('location')!.split('/').pop();
    const asEmployee = { authorization: `Bearer ${employee}` };
    const asCustomer = { authorization: `Bearer ${customer}` };
    const cases: [string, Record<string, string>][] = [
      [`/listings/properties/${id}`, asEmployee],
      ['/listings/properties?cityIds[]=madrid', asEmployee],
      ['/content/static-pages', {}],
      ['/content/static-pages/', {}],
      ['/content/static-pages/about', {}],
      ['/api/v1/tokens/limits', asCustomer],
      ['/api/v1/c/transactions', asCustomer],
    ];
    const counters = () => {
      const out = new Exposition();
      ctx.deps.requests.write(out);
      return samples(out.text());
    };
    const movedBy = async (send: () => unknown) => {
      const before = counters();
      await send();
      const after = counters();
      return [...after]
        .filter(
          ([key, value]) => key.startsWith('http_requests_total') && value !== before.get(key),
        )
        .map(([key]) => key);
    };
    for (const [path, headers] of cases) {
      await ctx.fetch(new Request(`${BASE}${path}`, { headers })); // remembers the token
      const fast = await movedBy(async () => {
        expect((await laneSnapshot(ctx, path, headers)).lane).toBe('fast');
      });
      const full = await movedBy(() =>
        ctx.fullPipeline(new Request(`${BASE}${path}`, { headers })),
      );
      expect({ path, fast }).toEqual({ path, fast: full });
      expect(fast).toHaveLength(1);
      expect(fast[0]).not.toContain(UNMATCHED);
    }
  });

  sqliteOnly.test(
    BACKUPS_COPY_THE_FILE,
    'job runs, their durations, and the age of the newest backup',
    async () => {
      const clock = manualClock(Date.UTC(2026, 10, 22, 3, 0, 0));
      const ctx = createTestApp({ clock });
      expect((await ctx.deps.jobs!.runNow('database-backup')).outcome).toBe('succeeded');
      clock.advance(90_000);
      const after = await scrape(ctx, await ctx.tokenFor('ops', 'employee'));
      expect(after.get('listings_job_runs_total{job="database-backup",outcome="succeeded"}')).toBe(
        1,
      );
      expect(after.get('listings_job_runs_total{job="database-backup",outcome="failed"}')).toBe(0);
      expect(after.get('listings_job_run_seconds_total{job="database-backup"}')).toBeGreaterThan(0);
      expect(after.get('listings_job_last_run_seconds{job="database-backup"}')).toBeGreaterThan(0);
      expect(after.has('listings_job_last_run_seconds{job="plan-window-reset"}')).toBe(false);
      expect(after.get('listings_backups')).toBe(1);
      expect(after.get('listings_backup_age_seconds')).toBe(90);
    },
  );

  test('the mail outbox: messages waiting, given up on, and the age of the oldest waiting', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 22, 3, 0, 0));
    const ctx = createTestApp({ clock });
    const token = await ctx.tokenFor('ops', 'employee');
    const outboxOf = (figures: Map<string, number>) => [
      figures.get('listings_mail_outbox_pending'),
      figures.get('listings_mail_outbox_failed'),
      figures.get('listings_mail_outbox_oldest_pending_age_seconds'),
    ];
    expect(outboxOf(await scrape(ctx, token))).toEqual([0, 0, 0]);
    const mail = ctx.deps.stores.mail;
    const message = outboxRowOf({
      ...{ to: 'someone@example.com', template: 'test', language: 'en' },
      data: { service: 'Listings' },
    });
    await mail.enqueue(message, new Date(clock()));
    clock.advance(30_000);
    const refused = await mail.enqueue(message, new Date(clock()));
    await mail.markFailed(refused, '550 Mailbox unavailable', new Date(clock()), null);
    await mail.enqueue(message, new Date(clock()));
    clock.advance(90_000);
    expect(outboxOf(await scrape(ctx, token))).toEqual([2, 1, 120]);
  });

  test('rate-limit refusals are counted by the window that refused', async () => {
    const ctx = createTestApp({ env: { RATE_LIMIT_CUSTOMER_PER_MINUTE: '1' } });
    const customer = await ctx.tokenFor('c1', 'customer');
    expect((await ctx.request('GET', '/api/v1/c/transactions', { token: customer })).status).toBe(
      200,
    );
    expect((await ctx.request('GET', '/api/v1/c/transactions', { token: customer })).status).toBe(
      429,
    );
    const after = await scrape(ctx, await ctx.tokenFor('ops', 'employee'));
    expect(after.get('listings_rate_limit_refusals_total{window="minute"}')).toBe(1);
    expect(after.has('listings_rate_limit_refusals_total{window="hour"}')).toBe(false);
    expect(
      after.get('http_requests_total{method="GET",route="/api/v1/c/transactions",status="429"}'),
    ).toBe(1);
  });

  sqliteOnly.test(READ_CACHE, 'read-cache hits, misses and entries follow the reads', async () => {
    const ctx = createTestApp();
    const token = await ctx.tokenFor('ops', 'employee');
    const created = await ctx.request('POST', '/listings/properties', {
      token,
      body: propertyBody(),
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').pop();
    const path = `/listings/properties/${id}`;
    const before = await scrape(ctx, token);
    for (let i = 0; i < 3; i++)
      expect((await ctx.request('GET', path, { token })).status).toBe(200);
    const after = await scrape(ctx, token);
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta('listings_read_cache_misses_total')).toBe(1);
    expect(delta('listings_read_cache_hits_total')).toBe(2);
    expect(after.get('listings_read_cache_entries')).toBe(ctx.deps.readCache.size);
    expect(ctx.deps.readCache.size).toBeGreaterThan(0);
  });

  test('METRICS_TOKEN as a bearer token reads the metrics', async () => {
    const ctx = createTestApp({ env: { METRICS_TOKEN } });
    const res = await ctx.request('GET', '/metrics', { token: METRICS_TOKEN });
    expect(res.status).toBe(200);
    expect(res.text).toContain('# TYPE http_requests_total counter');
  });
});

describe('METRICS=off', () => {
  test('GET /metrics is an unknown route (404 problem) and no request is observed', async () => {
    const ctx = createTestApp({ env: { METRICS: 'off', METRICS_TOKEN } });
    const token = await ctx.tokenFor('ops', 'employee');
    await ctx.request('GET', '/health');
    await ctx.request('GET', '/content/static-pages/');
    for (const credential of [token, METRICS_TOKEN]) {
      const res = await ctx.request('GET', '/metrics', { token: credential });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(problemOf(404));
    }
    const out = new Exposition();
    ctx.deps.requests.write(out);
    expect(out.text()).not.toContain('http_requests_total{');
  });

  test('a value other than on/off stops configuration parsing', () => {
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', METRICS: 'maybe' })).toThrow('METRICS');
  });
});

describe('auth', () => {
  test.each([
    ['no credential', undefined],
    ['an invalid token', 'not.a.jwt'],
    ['a wrong metrics token', `${METRICS_TOKEN}x`],
  ])('%s → 401 problem', async (_label, token) => {
    const ctx = createTestApp({ env: { METRICS_TOKEN } });
    const res = await ctx.request('GET', '/metrics', { token });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problemOf(401));
  });

  test('a customer → 403 problem', async () => {
    await expectCustomerRefused(createTestApp(), ['GET /metrics']);
  });

  test('without METRICS_TOKEN set, that string is just an invalid bearer token → 401', async () => {
    const ctx = createTestApp();
    const res = await ctx.request('GET', '/metrics', { token: METRICS_TOKEN });
    expect(res.status).toBe(401);
  });

  test('METRICS_TOKEN shorter than 32 characters stops configuration parsing, value not shown', () => {
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', METRICS_TOKEN: 'short' })).toThrow(
      'METRICS_TOKEN: must be at least 32 characters (got 5 characters, not shown)',
    );
  });
});
