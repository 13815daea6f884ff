import { Cron, CronPattern } from 'croner';
import { and, desc, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { type JobRunRow, jobRuns } from '@/db/schema';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import type { Logger } from '@/logger';

/** Runs kept per job; older ones are pruned after every run. */
export const RUNS_KEPT_PER_JOB = 1000;
/** Runs shown per job by `status()` (GET /admin/jobs). */
export const RUNS_SHOWN_PER_JOB = 20;
/** Cron patterns are read in UTC, like the plan windows of the customer API. */
export const SCHEDULE_TIMEZONE = 'UTC';

export interface JobContext {
  /** Aborted when the scheduler stops; a chunked job checks it between chunks. */
  signal: AbortSignal;
  shouldStop(): boolean;
}

/** The figures a run returns (counts, durations); stored as the run's details. */
export type JobDetails = Record<string, unknown>;

export interface JobDefinition {
  /** `noun-verb`, unique. */
  name: string;
  /** Cron pattern, UTC. */
  pattern: string;
  /** Also run once as soon as the scheduler starts. */
  runAtStart?: boolean;
  run(ctx: JobContext): JobDetails | undefined | Promise<JobDetails | undefined>;
}

export interface JobRun {
  startedAt: string;
  finishedAt: string;
  outcome: 'succeeded' | 'failed';
  details: JobDetails;
}

export interface JobStatus {
  name: string;
  schedule: string;
  /** ISO time of the next scheduled run; null while scheduling is off or stopped. */
  nextRunAt: string | null;
  /** Most recent first. */
  lastRuns: JobRun[];
}

/** Runs since the process started, for /metrics. */
export interface JobStats {
  succeeded: number;
  failed: number;
  /** Seconds spent in finished runs. */
  durationSeconds: number;
  /** Seconds the latest run took; NaN before the first. */
  lastDurationSeconds: number;
}

export interface Scheduler {
  /** Starts the cron timers and the run-at-start jobs; once. */
  start(): void;
  /** Stops the timers, signals running jobs and waits for them to finish. */
  stop(): Promise<void>;
  /** What a cron tick does: runs the job, or skips (null) while it is still running. */
  trigger(name: string): Promise<JobRun | null>;
  /** Runs a job now: NotFound for an unknown name, Conflict while it is running. */
  runNow(name: string): Promise<JobRun>;
  status(): JobStatus[];
  /** Counts and durations of the runs of this process, by job name. */
  stats(): ReadonlyMap<string, Readonly<JobStats>>;
}

export interface SchedulerOptions {
  jobs: readonly JobDefinition[];
  db: Db;
  logger: Logger;
  clock: Clock;
}

/** Throws on a duplicate name or a pattern croner cannot parse (a programming error). */
export function assertValidJobs(jobs: readonly JobDefinition[]): void {
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.name)) throw new Error(`duplicate job name "${job.name}"`);
    names.add(job.name);
    new CronPattern(job.pattern, SCHEDULE_TIMEZONE);
  }
}

export const unknownJob = (name: string) =>
  fail('job.not_found', { detail: `Job "${name}" was not found` });

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const toRun = (row: Pick<JobRunRow, 'startedAt' | 'finishedAt' | 'outcome' | 'details'>) => ({
  startedAt: row.startedAt.toISOString(),
  finishedAt: row.finishedAt.toISOString(),
  outcome: row.outcome,
  details: row.details,
});

export function createScheduler({ jobs, db, logger, clock }: SchedulerOptions): Scheduler {
  assertValidJobs(jobs);
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const running = new Map<string, Promise<JobRun>>();
  const crons = new Map<string, Cron>();
  const stopping = new AbortController();
  const context: JobContext = {
    signal: stopping.signal,
    shouldStop: () => stopping.signal.aborted,
  };
  let started = false;
  const stats = new Map<string, JobStats>(
    jobs.map((job) => [
      job.name,
      { succeeded: 0, failed: 0, durationSeconds: 0, lastDurationSeconds: Number.NaN },
    ]),
  );

  function record(name: string, row: Omit<JobRunRow, 'id' | 'job'>): void {
    // Keep the newest RUNS_KEPT_PER_JOB: delete at and below the first id past them.
    const cutoff = sql`(SELECT id FROM job_runs WHERE job = ${name} ORDER BY id DESC LIMIT 1 OFFSET ${RUNS_KEPT_PER_JOB})`;
    db.transaction((tx) => {
      tx.insert(jobRuns)
        .values({ job: name, ...row })
        .run();
      tx.delete(jobRuns)
        .where(and(eq(jobRuns.job, name), lte(jobRuns.id, cutoff)))
        .run();
    });
  }

  async function execute(job: JobDefinition): Promise<JobRun> {
    const startedAt = new Date(clock());
    const timer = performance.now();
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
    }
    const row = { startedAt, finishedAt: new Date(clock()), outcome, details };
    const figures = stats.get(job.name)!;
    const seconds = (performance.now() - timer) / 1000;
    figures[outcome] += 1;
    figures.durationSeconds += seconds;
    figures.lastDurationSeconds = seconds;
    try {
      record(job.name, row);
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
  function begin(job: JobDefinition): Promise<JobRun> | null {
    if (running.has(job.name)) return null;
    const run = Promise.resolve()
      .then(() => execute(job))
      .finally(() => running.delete(job.name));
    running.set(job.name, run);
    return run;
  }

  async function trigger(name: string): Promise<JobRun | null> {
    const job = byName.get(name);
    if (!job || stopping.signal.aborted) return null;
    const run = begin(job);
    if (!run) logger.warn('job still running; scheduled run skipped', { job: name });
    return run;
  }

  return {
    start() {
      if (started || stopping.signal.aborted) return;
      started = true;
      for (const job of jobs) {
        const cron = new Cron(job.pattern, { timezone: SCHEDULE_TIMEZONE, catch: true }, () => {
          void trigger(job.name);
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
        begin(job) ??
        Promise.reject(fail('job.running', { detail: `Job "${name}" is already running` }))
      );
    },

    status() {
      const now = new Date(clock());
      return jobs.map((job) => ({
        name: job.name,
        schedule: job.pattern,
        nextRunAt: crons.get(job.name)?.nextRun(now)?.toISOString() ?? null,
        lastRuns: db
          .select()
          .from(jobRuns)
          .where(eq(jobRuns.job, job.name))
          .orderBy(desc(jobRuns.id))
          .limit(RUNS_SHOWN_PER_JOB)
          .all()
          .map(toRun),
      }));
    },
  };
}
