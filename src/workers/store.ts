import type { JobRunRow } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';

export type RunFields = Pick<
  JobRunRow,
  'startedAt' | 'finishedAt' | 'outcome' | 'details' | 'instance' | 'tick'
>;

/**
 * Where the scheduler records its jobs' runs (`job_runs`, GET /admin/jobs).
 * `sqliteJobRuns` answers at once, `postgresJobRuns` with promises.
 */
export interface JobRunStore {
  /** Records a finished run and keeps its job's newest RUNS_KEPT_PER_JOB, in one transaction. */
  record(job: string, row: RunFields): MaybePromise<void>;
  /** The newest `limit` runs of `job`, newest first. */
  lastRuns(job: string, limit: number): MaybePromise<RunFields[]>;
}
