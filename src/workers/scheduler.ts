import { Cron } from 'croner';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import type { JobRunStore, RunFields } from '@/workers/store';
import {
  assertValidJobs,
  type JobContext,
  type JobDefinition,
  type JobDetails,
  type JobRun,
  type JobStats,
  type JobStatus,
  toRun,
} from './job';
import { holdWhileRunning, type JobLeases, runLeased } from './leases';
import { SCHEDULE_TIMEZONE, tickOf } from './ticks';

export { RUNS_KEPT_PER_JOB } from './job-runs';
/** Runs shown per job by `status()` (GET /admin/jobs). */
export const RUNS_SHOWN_PER_JOB = 20;
export { SCHEDULE_TIMEZONE, tickOf } from './ticks';

export interface Scheduler {
  /** Starts the cron timers and the run-at-start jobs; once. */
  start(): void;
  /** Stops the timers, signals running jobs and waits for them to finish. */
  stop(): Promise<void>;
  /**
   * What a cron tick does: runs the job, or skips (null) while it is still
   * running — or, under shared leadership, when another instance has the
   * tick or no lease can be had. `tick` defaults to the schedule's latest
   * tick at the clock's time.
   */
  trigger(name: string, tick?: number): Promise<JobRun | null>;
  /** Runs a job now: NotFound for an unknown name, Conflict while it is running. */
  runNow(name: string): Promise<JobRun>;
  /** At once with runs recorded in SQLite; later from a store that answers later. */
  status(): MaybePromise<JobStatus[]>;
  /** Counts and durations of the runs of this process, by job name. */
  stats(): ReadonlyMap<string, Readonly<JobStats>>;
}

export interface SchedulerOptions {
  jobs: readonly JobDefinition[];
  /** Where the runs are recorded. */
  runs: JobRunStore;
  logger: Logger;
  clock: Clock;
  /** Shared leadership: each tick of a job runs on the one instance that claims it. */
  leadership?: { leases: JobLeases; instance: string };
}

export const unknownJob = (name: string) =>
  fail('job.not_found', { detail: `Job "${name}" was not found` });

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createScheduler({
  jobs,
  runs,
  logger,
  clock,
  leadership,
}: SchedulerOptions): Scheduler {
  assertValidJobs(jobs);
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const running = new Map<string, Promise<unknown>>();
  const crons = new Map<string, Cron>();
  const stopping = new AbortController();
  let started = false;
  const stats = new Map<string, JobStats>(
    jobs.map((job) => [
      job.name,
      { succeeded: 0, failed: 0, durationSeconds: 0, lastDurationSeconds: Number.NaN },
    ]),
  );

  /**
   * Runs the job once. Under a lease (`tick`), the lease is renewed while
   * the job runs; a lost lease (Redis unreachable for a whole hold, and the
   * tick claimed elsewhere) signals the job to stop like a shutdown does.
   */
  async function execute(job: JobDefinition, tick?: number): Promise<JobRun> {
    const startedAt = new Date(clock());
    const timer = performance.now();
    const lost = new AbortController();
    const signal = AbortSignal.any([stopping.signal, lost.signal]);
    const context: JobContext = { signal, shouldStop: () => signal.aborted };
    const release =
      leadership && tick !== undefined
        ? holdWhileRunning(leadership.leases, job.name, tick, () => {
            logger.warn('job lease lost; stopping the run', { job: job.name });
            lost.abort();
          })
        : undefined;
    let outcome: JobRun['outcome'] = 'succeeded';
    let details: JobDetails;
    try {
      details = (await job.run(context)) ?? {};
    } catch (error) {
      // Never fatal: the message is recorded and logged; no stack trace in any
      // log line (stacks can leak internals); the job name and message locate the failure.
      outcome = 'failed';
      details = { error: messageOf(error) };
      logger.error('job failed', { job: job.name, error: messageOf(error) });
    } finally {
      release?.();
    }
    const row: RunFields = {
      startedAt,
      finishedAt: new Date(clock()),
      outcome,
      details,
      instance: leadership?.instance ?? null,
      tick: leadership && tick !== undefined ? new Date(tick) : null,
    };
    const figures = stats.get(job.name)!;
    const seconds = (performance.now() - timer) / 1000;
    figures[outcome] += 1;
    figures.durationSeconds += seconds;
    figures.lastDurationSeconds = seconds;
    try {
      await runs.record(job.name, row);
    } catch (error) {
      logger.error('job run not recorded', { job: job.name, error: messageOf(error) });
    }
    logger.info('job finished', {
      job: job.name,
      outcome,
      durationMs: row.finishedAt.getTime() - startedAt.getTime(),
    });
    return toRun(row);
  }

  /** Starts a run unless one is in progress; the guard is set before the job starts. */
  function begin<T>(job: JobDefinition, run: () => Promise<T>): Promise<T> | null {
    if (running.has(job.name)) return null;
    const started = Promise.resolve()
      .then(run)
      .finally(() => running.delete(job.name));
    running.set(job.name, started);
    return started;
  }

  async function trigger(name: string, tick?: number): Promise<JobRun | null> {
    const job = byName.get(name);
    if (!job || stopping.signal.aborted) return null;
    const at = tick ?? tickOf(job.pattern, clock());
    const run = begin(job, () =>
      leadership && !job.perInstance
        ? runLeased(leadership.leases, job, at, logger, () => execute(job, at))
        : execute(job),
    );
    if (!run) logger.warn('job still running; scheduled run skipped', { job: name });
    return run;
  }

  return {
    start() {
      if (started || stopping.signal.aborted) return;
      started = true;
      for (const job of jobs) {
        const cron = new Cron(job.pattern, { timezone: SCHEDULE_TIMEZONE, catch: true }, () => {
          // The tick from the real time croner fires at: every instance names it alike.
          void trigger(job.name, tickOf(job.pattern, Date.now()));
        });
        crons.set(job.name, cron);
      }
      for (const job of jobs) if (job.runAtStart) void trigger(job.name);
    },

    async stop() {
      for (const cron of crons.values()) cron.stop();
      crons.clear();
      stopping.abort();
      await Promise.allSettled(running.values());
    },

    trigger,
    stats: () => stats,

    runNow(name) {
      const job = byName.get(name);
      if (!job) return Promise.reject(unknownJob(name));
      if (stopping.signal.aborted) return Promise.reject(fail('service.stopping'));
      return (
        begin(job, () => execute(job)) ??
        Promise.reject(fail('job.running', { detail: `Job "${name}" is already running` }))
      );
    },

    status() {
      const now = new Date(clock());
      const lastRuns = jobs.map((job) => runs.lastRuns(job.name, RUNS_SHOWN_PER_JOB));
      const statusOf = (rows: RunFields[][]) =>
        jobs.map((job, i) => ({
          name: job.name,
          schedule: job.pattern,
          nextRunAt: crons.get(job.name)?.nextRun(now)?.toISOString() ?? null,
          lastRuns: rows[i]!.map(toRun),
        }));
      // At once when every answer is (SQLite); otherwise once all have come.
      return lastRuns.some((answer) => answer instanceof Promise)
        ? Promise.all(lastRuns).then(statusOf)
        : statusOf(lastRuns as RunFields[][]);
    },
  };
}
