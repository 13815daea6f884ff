import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * One row per finished worker run (shown by GET /admin/jobs), pruned to the newest 1,000
 * per job. Runs of one job never overlap, so `id` order is start order.
 */
export const jobRuns = sqliteTable(
  'job_runs',
  {
    id: integer().primaryKey(),
    job: text().notNull(),
    startedAt: integer({ mode: 'timestamp_ms' }).notNull(),
    finishedAt: integer({ mode: 'timestamp_ms' }).notNull(),
    outcome: text({ enum: ['succeeded', 'failed'] }).notNull(),
    /** The figures the job returned, or `{error}` with the message (never a stack). */
    details: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** The instance that ran it, when instances share job leadership (REDIS_URL); else null. */
    instance: text(),
    /** The schedule tick the run held the lease for (its fencing token); null for a run on demand. */
    tick: integer({ mode: 'timestamp_ms' }),
  },
  (table) => [index('job_runs_job_id').on(table.job, table.id)],
);

export type JobRunRow = typeof jobRuns.$inferSelect;
