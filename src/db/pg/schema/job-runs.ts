import { index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs, serialKey } from './columns';

export const jobRuns = pgTable(
  'job_runs',
  {
    id: serialKey(),
    job: text().notNull(),
    startedAt: epochMs().notNull(),
    finishedAt: epochMs().notNull(),
    outcome: text({ enum: ['succeeded', 'failed'] }).notNull(),
    details: json().$type<Record<string, unknown>>().notNull(),
    instance: text(),
    tick: epochMs(),
  },
  (table) => [index('job_runs_job_id').on(table.job, table.id)],
);
