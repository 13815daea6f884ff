import { CronPattern } from 'croner';
import type { RunFields } from '@/workers/store';
import { SCHEDULE_TIMEZONE } from './ticks';

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
  /**
   * Runs on every instance, never under a lease: it works on this process's
   * own state (its caches, its in-process windows).
   */
  perInstance?: boolean;
  run(ctx: JobContext): JobDetails | undefined | Promise<JobDetails | undefined>;
}

export interface JobRun {
  startedAt: string;
  finishedAt: string;
  outcome: 'succeeded' | 'failed';
  details: JobDetails;
  /** With shared leadership: the instance that ran it. */
  instance?: string;
  /** With shared leadership: the schedule tick it ran for (ISO); absent for a run on demand. */
  tick?: string;
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

/** Throws on a duplicate name or a pattern croner cannot parse (a programming error). */
export function assertValidJobs(jobs: readonly JobDefinition[]): void {
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.name)) throw new Error(`duplicate job name "${job.name}"`);
    names.add(job.name);
    new CronPattern(job.pattern, SCHEDULE_TIMEZONE);
  }
}

/** A recorded run as GET /admin/jobs shows it. */
export const toRun = (row: RunFields): JobRun => ({
  startedAt: row.startedAt.toISOString(),
  finishedAt: row.finishedAt.toISOString(),
  outcome: row.outcome,
  details: row.details,
  ...(row.instance === null ? {} : { instance: row.instance }),
  ...(row.tick === null ? {} : { tick: row.tick.toISOString() }),
});
