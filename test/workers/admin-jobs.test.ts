import { describe, expect, test } from 'bun:test';
import { JobList, JobRunResult } from '@/api/admin/schemas';
import { createApp } from '@/app';
import { createLogger } from '@/logger';
import { createScheduler } from '@/workers/scheduler';
import { expectCustomerRefused } from '../support/auth-guards';
import { BASE, createTestApp, problemOf } from '../support/harness';
import { gate, NEVER_SOON } from './support';

const JOB_NAMES = [
  'plan-window-reset',
  'unit-counter-reconcile',
  'static-page-cache-warm',
  'events-prune',
  'webhook-delivery',
  'mail-delivery',
  'database-backup',
  'audit-retention',
];

describe('happy', () => {
  test('GET /admin/jobs lists every job with schedule, nextRunAt and last runs', async () => {
    const ctx = createTestApp();
    const res = await ctx.request('GET', '/admin/jobs', {
      token: await ctx.tokenFor('ops', 'employee'),
    });
    expect(res.status).toBe(200);
    expect(JobList.parse(res.body)).toEqual({
      jobs: [
        // The test app is never started, so nothing is scheduled.
        { name: 'plan-window-reset', schedule: '* * * * *', nextRunAt: null, lastRuns: [] },
        { name: 'unit-counter-reconcile', schedule: '*/5 * * * *', nextRunAt: null, lastRuns: [] },
        { name: 'static-page-cache-warm', schedule: '*/10 * * * *', nextRunAt: null, lastRuns: [] },
        { name: 'events-prune', schedule: '17 * * * *', nextRunAt: null, lastRuns: [] },
        { name: 'webhook-delivery', schedule: '*/10 * * * * *', nextRunAt: null, lastRuns: [] },
        { name: 'mail-delivery', schedule: '*/10 * * * * *', nextRunAt: null, lastRuns: [] },
        { name: 'database-backup', schedule: '0 3 * * *', nextRunAt: null, lastRuns: [] },
        { name: 'audit-retention', schedule: '30 3 * * *', nextRunAt: null, lastRuns: [] },
      ],
    });
  });

  test.each(JOB_NAMES)(
    'POST /admin/jobs/%s/run runs it and answers 200 with the run',
    async (name) => {
      const ctx = createTestApp();
      const token = await ctx.tokenFor('ops', 'employee');
      const at = new Date(ctx.clock()).toISOString();
      const res = await ctx.request('POST', `/admin/jobs/${name}/run`, { token });
      expect(res.status).toBe(200);
      expect(JobRunResult.parse(res.body)).toEqual({
        job: name,
        startedAt: at,
        finishedAt: at,
        outcome: 'succeeded',
        details: expect.any(Object),
      });
      const list = await ctx.request<{ jobs: { name: string; lastRuns: unknown[] }[] }>(
        'GET',
        '/admin/jobs',
        { token },
      );
      const { job, ...run } = res.body as Record<string, unknown>;
      expect(list.body.jobs.find((entry) => entry.name === name)?.lastRuns).toEqual([run]);
    },
  );
});

describe('error', () => {
  test('POST for an unknown job → 404 problem naming it', async () => {
    const ctx = createTestApp();
    const res = await ctx.request('POST', '/admin/jobs/nope/run', {
      token: await ctx.tokenFor('ops', 'employee'),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problemOf(404, 'Job "nope" was not found'));
  });

  test('POST while the job runs → 409 problem; a failing job answers 200 with outcome failed', async () => {
    const ctx = createTestApp();
    const blocker = gate();
    const started = gate();
    const jobs = createScheduler({
      jobs: [
        {
          name: 'slow',
          pattern: NEVER_SOON,
          run: () => {
            started.open();
            return blocker.opened.then(() => ({ done: 1 }));
          },
        },
        {
          name: 'broken',
          pattern: NEVER_SOON,
          run: () => {
            throw new Error('upstream gone');
          },
        },
      ],
      runs: ctx.deps.stores.jobRuns,
      logger: createLogger('silent'),
      clock: ctx.clock,
    });
    const app = createApp({ ...ctx.deps, jobs });
    const token = await ctx.tokenFor('ops', 'employee');
    const post = (name: string) =>
      app.handle(
        new Request(`${BASE}/admin/jobs/${name}/run`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        }),
      );

    const first = post('slow');
    await started.opened;
    const second = await post('slow');
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual(problemOf(409, 'Job "slow" is already running'));
    blocker.open();
    expect((await first).status).toBe(200);

    const broken = await post('broken');
    expect(broken.status).toBe(200);
    expect(await broken.json()).toMatchObject({
      job: 'broken',
      outcome: 'failed',
      details: { error: 'upstream gone' },
    });
  });

  test('GET /admin/jobs/x/run → 405 with Allow: POST', async () => {
    const ctx = createTestApp();
    const res = await ctx.request('GET', '/admin/jobs/plan-window-reset/run', {
      token: await ctx.tokenFor('ops', 'employee'),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('auth', () => {
  const routes = [
    ['GET', '/admin/jobs'],
    ['POST', '/admin/jobs/plan-window-reset/run'],
  ] as const;

  test.each(routes)('%s %s without a token → 401 problem', async (method, path) => {
    const res = await createTestApp().request(method, path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
  });

  test.each(routes)('%s %s with an invalid token → 401 problem', async (method, path) => {
    const res = await createTestApp().request(method, path, { token: 'not.a.jwt' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
  });

  test.each(routes)('%s %s as a customer → 403 problem, nothing run', async (method, path) => {
    const ctx = createTestApp();
    await expectCustomerRefused(ctx, [`${method} ${path}`]);
    expect((await ctx.deps.jobs!.status()).flatMap((job) => job.lastRuns)).toEqual([]);
  });
});
