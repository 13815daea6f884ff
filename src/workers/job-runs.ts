import { sql } from 'drizzle-orm';

/** Runs kept per job; older ones are pruned after every run. */
export const RUNS_KEPT_PER_JOB = 1000;

/**
 * The id at and below which a job's runs are past those kept (none: nothing
 * is deleted); the same statement on both databases.
 */
export const pastKeptRuns = (job: string) =>
  sql`(SELECT id FROM job_runs WHERE job = ${job} ORDER BY id DESC LIMIT 1 OFFSET ${RUNS_KEPT_PER_JOB})`;
