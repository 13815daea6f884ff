import { afterEach, describe, expect, test } from 'bun:test';
import { Cron } from 'croner';
import { STATUS_OF } from '@/api/errors';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import { jobRuns } from '@/db/sqlite/schema';
import { DomainError } from '@/kernel/errors';
import { assertValidJobs, type JobContext } from '@/workers/job';
import { RUNS_KEPT_PER_JOB, RUNS_SHOWN_PER_JOB, type Scheduler } from '@/workers/scheduler';
import { manualClock } from '../support/harness';
import { gate, NEVER_SOON, schedulerWith } from './support';

const started: Scheduler[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((scheduler) => scheduler.stop()));
});

async function statusOf(promise: Promise<unknown>): Promise<number | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return error instanceof DomainError ? STATUS_OF[error.code] : -1;
  }
}

describe('happy', () => {
  test('runNow records the figures the job returns, with start and end from the clock', async () => {
    const clock = manualClock(Date.UTC(2026, 0, 5, 10, 0, 0));
    const { scheduler } = schedulerWith(
      [
        {
          name: 'count-things',
          pattern: NEVER_SOON,
          run: async () => {
            clock.advance(1500);
            return { repaired: 3, scanned: 10 };
          },
        },
      ],
      clock,
    );
    const run = await scheduler.runNow('count-things');
    expect(run).toEqual({
      startedAt: '2026-01-05T10:00:00.000Z',
      finishedAt: '2026-01-05T10:00:01.500Z',
      outcome: 'succeeded',
      details: { repaired: 3, scanned: 10 },
    });
    expect((await scheduler.status())[0]!.lastRuns).toEqual([run]);
  });

  test('a job returning nothing is recorded with empty details', async () => {
    const { scheduler } = schedulerWith([
      { name: 'quiet', pattern: NEVER_SOON, run: () => undefined },
    ]);
    expect((await scheduler.runNow('quiet')).details).toEqual({});
  });

  test('a failing job is recorded as failed with its message (no stack), logged with its name, and the next run still happens', async () => {
    let calls = 0;
    const { scheduler, lines } = schedulerWith([
      {
        name: 'flaky',
        pattern: NEVER_SOON,
        run: () => {
          calls += 1;
          if (calls === 1) throw new Error('disk on fire');
          return { calls };
        },
      },
    ]);
    const first = await scheduler.trigger('flaky');
    expect(first?.outcome).toBe('failed');
    expect(first?.details).toEqual({ error: 'disk on fire' });
    expect(JSON.stringify(first)).not.toContain('at ');

    const second = await scheduler.trigger('flaky');
    expect(second?.outcome).toBe('succeeded');
    expect(second?.details).toEqual({ calls: 2 });

    const { lastRuns } = (await scheduler.status())[0]!;
    expect(lastRuns.map((run) => run.outcome)).toEqual(['succeeded', 'failed']);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'job failed',
        job: 'flaky',
        error: 'disk on fire',
      }),
    );
  });

  test('a rejected promise and a thrown non-Error are failures too', async () => {
    const { scheduler } = schedulerWith([
      { name: 'rejects', pattern: NEVER_SOON, run: () => Promise.reject(new Error('nope')) },
      {
        name: 'throws-string',
        pattern: NEVER_SOON,
        run: () => {
          throw 'plain string';
        },
      },
    ]);
    expect((await scheduler.runNow('rejects')).details).toEqual({ error: 'nope' });
    expect((await scheduler.runNow('throws-string')).details).toEqual({ error: 'plain string' });
  });

  test('status lists every job in order, last runs most recent first, at most 20', async () => {
    let n = 0;
    const { scheduler } = schedulerWith([
      { name: 'a', pattern: '*/5 * * * *', run: () => ({ n: ++n }) },
      { name: 'b', pattern: NEVER_SOON, run: () => ({}) },
    ]);
    for (let i = 0; i < RUNS_SHOWN_PER_JOB + 2; i++) await scheduler.runNow('a');
    const [a, b] = await scheduler.status();
    expect(a!.name).toBe('a');
    expect(a!.schedule).toBe('*/5 * * * *');
    expect(a!.lastRuns).toHaveLength(RUNS_SHOWN_PER_JOB);
    expect(a!.lastRuns[0]!.details).toEqual({ n: RUNS_SHOWN_PER_JOB + 2 });
    expect(a!.lastRuns[1]!.details).toEqual({ n: RUNS_SHOWN_PER_JOB + 1 });
    expect(b).toEqual({ name: 'b', schedule: NEVER_SOON, nextRunAt: null, lastRuns: [] });
  });

  test('start schedules each job with croner (nextRunAt in UTC) and runs the run-at-start jobs once', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 30));
    let warmed = 0;
    const { scheduler } = schedulerWith(
      [
        { name: 'every-five', pattern: '*/5 * * * *', run: () => ({}) },
        {
          name: 'warm',
          pattern: '0 3 * * *',
          runAtStart: true,
          run: () => ({ warmed: ++warmed }),
        },
      ],
      clock,
    );
    expect((await scheduler.status()).map((job) => job.nextRunAt)).toEqual([null, null]);
    scheduler.start();
    started.push(scheduler);
    scheduler.start(); // idempotent: no second run at start
    expect((await scheduler.status()).map((job) => job.nextRunAt)).toEqual([
      '2026-11-22T12:05:00.000Z',
      '2026-11-23T03:00:00.000Z',
    ]);
    await Promise.resolve();
    await scheduler.stop();
    expect(warmed).toBe(1);
    const [, warm] = await scheduler.status();
    expect(warm!.lastRuns.map((run) => run.details)).toEqual([{ warmed: 1 }]);
    expect(warm!.nextRunAt).toBeNull();
  });

  test('runs are pruned to the newest 1,000 per job; other jobs keep theirs', async () => {
    const ctx = schedulerWith([
      { name: 'busy', pattern: NEVER_SOON, run: () => ({ last: true }) },
      { name: 'other', pattern: NEVER_SOON, run: () => ({}) },
    ]);
    const { scheduler } = ctx;
    const { postgres } = ctx.deps;
    const at = new Date(Date.UTC(2026, 0, 1));
    const row = (job: string, i: number) => ({
      job,
      startedAt: at,
      finishedAt: at,
      outcome: 'succeeded' as const,
      details: { i },
    });
    const insert = async (rows: ReturnType<typeof row>[]) => {
      if (postgres) await pgDatabase(postgres).insert(pg.jobRuns).values(rows);
      else ctx.db.insert(jobRuns).values(rows).run();
    };
    await insert(Array.from({ length: RUNS_KEPT_PER_JOB }, (_, i) => row('busy', i)));
    await insert([row('other', 0), row('other', 1)]);

    await scheduler.runNow('busy');
    await scheduler.runNow('busy');

    const count = async (job: string) =>
      Number((await ctx.deps.stores.jobRuns.lastRuns(job, 2 * RUNS_KEPT_PER_JOB)).length);
    expect(await count('busy')).toBe(RUNS_KEPT_PER_JOB);
    expect(await count('other')).toBe(2);
    const kept = (await ctx.deps.stores.jobRuns.lastRuns('busy', 2 * RUNS_KEPT_PER_JOB)).reverse();
    // The two oldest went; the two new runs are the newest.
    expect(kept[0]!.details).toEqual({ i: 2 });
    expect(kept.at(-1)!.details).toEqual({ last: true });
  });
});

describe('overlap and shutdown', () => {
  test('a job never overlaps itself: a tick is skipped and runNow refused (409) while it runs', async () => {
    const blocker = gate();
    let runs = 0;
    const { scheduler, lines } = schedulerWith([
      {
        name: 'slow',
        pattern: NEVER_SOON,
        run: async () => {
          runs += 1;
          await blocker.opened;
          return { runs };
        },
      },
      { name: 'fast', pattern: NEVER_SOON, run: () => ({ ok: true }) },
    ]);
    const first = scheduler.trigger('slow');
    expect(await scheduler.trigger('slow')).toBeNull();
    expect(await statusOf(scheduler.runNow('slow'))).toBe(409);
    // Other jobs are not held up.
    expect((await scheduler.runNow('fast')).outcome).toBe('succeeded');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        job: 'slow',
        msg: 'job still running; scheduled run skipped',
      }),
    );

    blocker.open();
    expect((await first)?.details).toEqual({ runs: 1 });
    expect(runs).toBe(1);
    expect((await scheduler.runNow('slow')).details).toEqual({ runs: 2 });
  });

  test('runNow of an unknown job → 404', async () => {
    const { scheduler } = schedulerWith([{ name: 'a', pattern: NEVER_SOON, run: () => ({}) }]);
    expect(await statusOf(scheduler.runNow('b'))).toBe(404);
    expect(await scheduler.trigger('b')).toBeNull();
  });

  test('stop signals the running job, waits for its current chunk, then refuses new runs', async () => {
    const chunk = gate();
    let seen: JobContext | undefined;
    let chunks = 0;
    const { scheduler } = schedulerWith([
      {
        name: 'chunked',
        pattern: NEVER_SOON,
        run: async (ctx) => {
          seen = ctx;
          while (!ctx.shouldStop()) {
            await chunk.opened;
            chunks += 1;
          }
          return { chunks, stopped: ctx.signal.aborted };
        },
      },
    ]);
    const run = scheduler.runNow('chunked');
    await Promise.resolve();
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await Bun.sleep(1);
    expect(stopped).toBe(false);
    expect(seen?.shouldStop()).toBe(true);

    chunk.open();
    await stopping;
    expect(await run).toMatchObject({
      outcome: 'succeeded',
      details: { chunks: 1, stopped: true },
    });
    expect((await scheduler.status())[0]!.lastRuns).toHaveLength(1);
    expect(await statusOf(scheduler.runNow('chunked'))).toBe(503);
    expect(await scheduler.trigger('chunked')).toBeNull();
  });
});

describe('job definitions', () => {
  test('duplicate names and bad patterns are refused', () => {
    const run = () => ({});
    expect(() =>
      assertValidJobs([
        { name: 'x', pattern: NEVER_SOON, run },
        { name: 'x', pattern: NEVER_SOON, run },
      ]),
    ).toThrow('duplicate job name "x"');
    expect(() => assertValidJobs([{ name: 'x', pattern: 'every minute', run }])).toThrow();
  });

  test('croner agrees with nextRunAt for the default schedules', () => {
    const from = new Date(Date.UTC(2026, 10, 22, 12, 7, 30));
    const next = (pattern: string) =>
      new Cron(pattern, { paused: true, timezone: 'UTC' }).nextRun(from)?.toISOString();
    expect(next('* * * * *')).toBe('2026-11-22T12:08:00.000Z');
    expect(next('*/5 * * * *')).toBe('2026-11-22T12:10:00.000Z');
    expect(next('*/10 * * * *')).toBe('2026-11-22T12:10:00.000Z');
  });
});
