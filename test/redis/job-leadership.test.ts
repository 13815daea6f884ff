import { describe, expect, test } from 'bun:test';
import { JobList, JobRunResult } from '@/api/admin/schemas';
import { createLogger } from '@/logger';
import type { JobDefinition } from '@/workers/job';
import { holdWhileRunning, redisJobLeases } from '@/workers/leases';
import { createScheduler, tickOf } from '@/workers/scheduler';
import type { JobRunStore } from '@/workers/store';
import { kickDeliveriesOnEvents } from '@/workers/webhook-kick';
import { listingsContext, postProperty } from '../listings/support';
import { createTestApp, manualClock } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisEnv,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
  SHARED_REDIS_URL,
  testConnection,
} from '../support/redis';
import { LOCAL_WEBHOOKS, startReceiver } from '../webhooks/support';
import { gate } from '../workers/support';

const EVERY_MINUTE = '* * * * *';
const TICK = Date.UTC(2026, 10, 22, 12, 0, 0);
const MINUTE_MS = 60_000;

/** Schedulers of `jobs` for instances named `names`, on one database and one Redis prefix. */
function cluster(
  runs: JobRunStore,
  jobs: JobDefinition[],
  names: string[],
  url = SHARED_REDIS_URL,
) {
  const redis = testConnection(url);
  const clock = manualClock(TICK);
  return names.map((instance) =>
    createScheduler({
      jobs,
      runs,
      logger: createLogger('silent'),
      clock,
      leadership: { leases: redisJobLeases(redis, instance), instance },
    }),
  );
}

describe('happy: the tick of a schedule', () => {
  test('is the latest scheduled time at or before now, whatever the delay of the timer', () => {
    expect(tickOf(EVERY_MINUTE, TICK)).toBe(TICK);
    expect(tickOf(EVERY_MINUTE, TICK + 999)).toBe(TICK);
    expect(tickOf(EVERY_MINUTE, TICK + MINUTE_MS - 1)).toBe(TICK);
    expect(tickOf('*/10 * * * * *', TICK + 12_345)).toBe(TICK + 10_000);
  });
});

describe.skipIf(redisSkipReason !== undefined)(redisTitle('happy: one run per tick'), () => {
  test('three instances firing the same tick run the job once; the next tick once again', async () => {
    const { jobRuns } = createTestApp().deps.stores;
    let runs = 0;
    const jobs = [{ name: 'count-runs', pattern: EVERY_MINUTE, run: () => ({ run: ++runs }) }];
    const schedulers = cluster(jobRuns, jobs, ['a', 'b', 'c']);
    for (const tick of [TICK, TICK + MINUTE_MS]) {
      const results = await Promise.all(schedulers.map((s) => s.trigger('count-runs', tick)));
      expect(results.filter((run) => run !== null)).toHaveLength(1);
    }
    expect(runs).toBe(2);
    // Every instance lists the runs of all of them, each with its instance and tick.
    const lastRuns = (await schedulers[1]!.status())[0]!.lastRuns;
    expect(lastRuns.map((run) => run.tick)).toEqual([
      new Date(TICK + MINUTE_MS).toISOString(),
      new Date(TICK).toISOString(),
    ]);
    for (const run of lastRuns) expect(['a', 'b', 'c']).toContain(run.instance!);
  });

  test('a tick comes while the run of the last is still going elsewhere: skipped', async () => {
    const { jobRuns } = createTestApp().deps.stores;
    const slow = gate();
    let runs = 0;
    const jobs = [
      {
        name: 'slow-job',
        pattern: EVERY_MINUTE,
        run: async () => {
          runs++;
          await slow.opened;
          return undefined;
        },
      },
    ];
    const [a, b] = cluster(jobRuns, jobs, ['a', 'b']);
    const first = a!.trigger('slow-job', TICK);
    await Bun.sleep(20);
    expect(await b!.trigger('slow-job', TICK + MINUTE_MS)).toBeNull();
    slow.open();
    expect(await first).not.toBeNull();
    expect(await b!.trigger('slow-job', TICK + 2 * MINUTE_MS)).not.toBeNull();
    expect(runs).toBe(2);
  });

  test('a running lease is renewed; a lease taken over is reported lost', async () => {
    const redis = testConnection();
    const [a, b] = [redisJobLeases(redis, 'a'), redisJobLeases(redis, 'b')];
    const hold = 1_000;
    expect(await a.claim('renewed', TICK, hold)).toBe('claimed');
    let lost = false;
    const release = holdWhileRunning(a, 'renewed', TICK, () => (lost = true), hold);
    try {
      // Past its first hold, renewed: the next tick waits for it.
      await Bun.sleep(1.5 * hold);
      expect(await b.claim('renewed', TICK + MINUTE_MS, hold)).toBe('running');
      expect(lost).toBe(false);
      // As if it had expired and another instance had claimed a later tick.
      await redis.send('SET', [redis.key('job', '{renewed}'), `${TICK + MINUTE_MS} b running`]);
      for (let i = 0; i < 20 && !lost; i++) await Bun.sleep(hold / 6);
      expect(lost).toBe(true);
    } finally {
      release();
    }
  });

  test('a job of the instance itself runs on every instance', async () => {
    const { jobRuns } = createTestApp().deps.stores;
    let runs = 0;
    const jobs = [
      { name: 'warm-own', pattern: EVERY_MINUTE, perInstance: true, run: () => void runs++ },
    ];
    const schedulers = cluster(jobRuns, jobs, ['a', 'b']);
    await Promise.all(schedulers.map((s) => s.trigger('warm-own', TICK)));
    expect(runs).toBe(2);
  });

  test('a webhook kick after a commit runs delivery under the lease, with its time as the tick', async () => {
    const receiver = startReceiver();
    try {
      const ctx = await listingsContext({ env: { ...LOCAL_WEBHOOKS, ...redisEnv() } });
      const created = await ctx.request('POST', '/listings/webhooks', {
        body: { url: receiver.url() },
        token: ctx.employee,
      });
      expect(created.status).toBe(201);
      const stop = kickDeliveriesOnEvents(ctx.deps);
      try {
        await postProperty(ctx);
        await receiver.receivedCount(1);
      } finally {
        stop();
      }
      // The receiver has the request before the run is recorded.
      const lastRun = async () =>
        (await ctx.deps.jobs!.status()).find((job) => job.name === 'webhook-delivery')!.lastRuns[0];
      for (let i = 0; i < 100 && !(await lastRun()); i++) await Bun.sleep(10);
      expect(await lastRun()).toMatchObject({
        instance: ctx.deps.instance,
        tick: new Date(ctx.clock()).toISOString(),
      });
    } finally {
      receiver.stop();
    }
  });

  test('/admin/jobs shows the instance of a run', async () => {
    const ctx = createTestApp({ env: redisEnv() });
    const token = await ctx.tokenFor('ops', 'employee');
    const res = await ctx.request('POST', '/admin/jobs/events-prune/run', { token });
    expect(res.status).toBe(200);
    const run = JobRunResult.parse(res.body);
    expect(run.instance).toBe(ctx.deps.instance);
    expect(run.tick).toBeUndefined();
    const list = JobList.parse((await ctx.request('GET', '/admin/jobs', { token })).body);
    const prune = list.jobs.find((job) => job.name === 'events-prune')!;
    expect(prune.lastRuns[0]!.instance).toBe(ctx.deps.instance);
  });
});

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: Redis goes away'), () => {
  test('no lease, no run; the next tick after Redis is back runs', async () => {
    const server = await ownRedisServer();
    try {
      const { jobRuns } = createTestApp().deps.stores;
      let runs = 0;
      const jobs = [{ name: 'needs-lease', pattern: EVERY_MINUTE, run: () => void runs++ }];
      const [a] = cluster(jobRuns, jobs, ['a'], server.url);
      expect(await a!.trigger('needs-lease', TICK)).not.toBeNull();

      await server.stop();
      expect(await a!.trigger('needs-lease', TICK + MINUTE_MS)).toBeNull();
      expect(runs).toBe(1);

      await server.start();
      let run = await a!.trigger('needs-lease', TICK + 2 * MINUTE_MS);
      for (let i = 3; i < 50 && run === null; i++) {
        await Bun.sleep(100);
        run = await a!.trigger('needs-lease', TICK + i * MINUTE_MS);
      }
      expect(run).not.toBeNull();
      expect(runs).toBe(2);
    } finally {
      await server.stop();
    }
  });
});
