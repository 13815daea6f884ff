import type { Clock } from '@/kernel/clock';
import type { Logger } from '@/logger';
import type { RedisConnection } from '@/redis/connection';
import type { JobRunStore } from '@/workers/store';
import * as auditRetention from './audit-retention';
import * as databaseBackup from './database-backup';
import * as eventsPrune from './events-prune';
import type { JobDefinition } from './job';
import { redisJobLeases } from './leases';
import * as mailDelivery from './mail-delivery';
import * as planWindowReset from './plan-window-reset';
import { createScheduler, type Scheduler } from './scheduler';
import * as staticPageCacheWarm from './static-page-cache-warm';
import * as unitCounterReconcile from './unit-counter-reconcile';
import * as webhookDelivery from './webhook-delivery';

/** What a job's `run` uses of the shared services. */
type DepsOf<Job extends { run: (deps: never, ...rest: never[]) => unknown }> = Parameters<
  Job['run']
>[0];

/** What the jobs and their scheduler use of the shared services. */
export type WorkerDeps = DepsOf<typeof planWindowReset> &
  DepsOf<typeof unitCounterReconcile> &
  DepsOf<typeof staticPageCacheWarm> &
  DepsOf<typeof eventsPrune> &
  DepsOf<typeof webhookDelivery> &
  DepsOf<typeof mailDelivery> &
  DepsOf<typeof databaseBackup> &
  DepsOf<typeof auditRetention> & {
    stores: { jobRuns: JobRunStore };
    logger: Logger;
    clock: Clock;
    redis?: RedisConnection;
    instance: string;
  };

export type { JobContext, JobDefinition, JobDetails, JobRun } from './job';
export type { Scheduler } from './scheduler';

/** The worker jobs (docs/workers.md); schedules come from the JOB_*_CRON and BACKUP_CRON variables. */
export function workerJobs(deps: WorkerDeps): JobDefinition[] {
  const { jobSchedules } = deps.config;
  return [
    {
      name: 'plan-window-reset',
      pattern: jobSchedules.planWindowReset,
      // Clears this process's in-process windows (a no-op on the Redis store).
      perInstance: true,
      run: () => planWindowReset.run(deps),
    },
    {
      name: 'unit-counter-reconcile',
      pattern: jobSchedules.unitCounterReconcile,
      run: (ctx) => unitCounterReconcile.run(deps, ctx),
    },
    {
      name: 'static-page-cache-warm',
      pattern: jobSchedules.staticPageCacheWarm,
      runAtStart: true,
      // Every instance has a cache of its own to warm.
      perInstance: true,
      run: () => staticPageCacheWarm.run(deps),
    },
    {
      name: 'events-prune',
      pattern: jobSchedules.eventsPrune,
      run: () => eventsPrune.run(deps),
    },
    {
      name: 'webhook-delivery',
      pattern: jobSchedules.webhookDelivery,
      run: (ctx) => webhookDelivery.run(deps, ctx),
    },
    {
      name: 'mail-delivery',
      pattern: jobSchedules.mailDelivery,
      runAtStart: true,
      run: (ctx) => mailDelivery.run(deps, ctx),
    },
    {
      name: 'database-backup',
      pattern: jobSchedules.databaseBackup,
      run: () => databaseBackup.run(deps),
    },
    {
      name: 'audit-retention',
      pattern: jobSchedules.auditRetention,
      run: () => auditRetention.run(deps),
    },
  ];
}

/** The scheduler of the service's jobs; idle until `start()` (src/index.ts, when WORKERS is on). */
export function createWorkers(deps: WorkerDeps): Scheduler {
  return createScheduler({
    jobs: workerJobs(deps),
    runs: deps.stores.jobRuns,
    logger: deps.logger,
    clock: deps.clock,
    leadership: deps.redis
      ? { leases: redisJobLeases(deps.redis, deps.instance), instance: deps.instance }
      : undefined,
  });
}
