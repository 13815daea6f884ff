import { epochMs, json, serialKey, text } from './columns';
import { index, table } from './table';

/**
 * One row per finished worker run (shown by GET /admin/jobs), pruned to the newest 1,000
 * per job. Runs of one job never overlap, so `id` order is start order.
 */
export const jobRuns = table(
  'job_runs',
  {
    id: serialKey(),
    job: text().notNull(),
    startedAt: epochMs().notNull(),
    finishedAt: epochMs().notNull(),
    outcome: text({ enum: ['succeeded', 'failed'] }).notNull(),
    /** The figures the job returned, or `{error}` with the message (never a stack). */
    details: json<Record<string, unknown>>().notNull(),
    /** The instance that ran it, when instances share job leadership (REDIS_URL); else null. */
    instance: text(),
    /** The schedule tick the run held the lease for (its fencing token); null for a run on demand. */
    tick: epochMs(),
  },
  (t) => [index('job_runs_job_id').on(t.job, t.id)],
);
