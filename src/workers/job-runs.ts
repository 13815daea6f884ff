import type { SQL } from 'bun';
import { and, desc, eq, lte, sql } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import type { Db } from '@/db/sqlite/client';
import { jobRuns } from '@/db/sqlite/schema';
import type { JobRunStore } from '@/workers/store';

/** Runs kept per job; older ones are pruned after every run. */
export const RUNS_KEPT_PER_JOB = 1000;

/** The id at and below which a job's runs are past those kept (none: nothing is deleted). */
const cutoffOf = (job: string) =>
  sql`(SELECT id FROM job_runs WHERE job = ${job} ORDER BY id DESC LIMIT 1 OFFSET ${RUNS_KEPT_PER_JOB})`;

export const sqliteJobRuns = (db: Db) =>
  ({
    record(job, row) {
      db.transaction((tx) => {
        tx.insert(jobRuns)
          .values({ job, ...row })
          .run();
        tx.delete(jobRuns)
          .where(and(eq(jobRuns.job, job), lte(jobRuns.id, cutoffOf(job))))
          .run();
      });
    },
    lastRuns: (job, limit) =>
      db
        .select()
        .from(jobRuns)
        .where(eq(jobRuns.job, job))
        .orderBy(desc(jobRuns.id))
        .limit(limit)
        .all(),
  }) satisfies JobRunStore;

/**
 * The same on PostgreSQL. Instances record runs at once; two prunes of one
 * job may overlap, each deleting what is past the newest kept when it runs.
 * The caller owns `client`.
 */
export function postgresJobRuns(client: SQL): JobRunStore {
  const db = pgDatabase(client);
  return {
    async record(job, row) {
      await db.transaction(async (tx) => {
        await tx.insert(pg.jobRuns).values({ job, ...row });
        await tx
          .delete(pg.jobRuns)
          .where(and(eq(pg.jobRuns.job, job), lte(pg.jobRuns.id, cutoffOf(job))));
      });
    },
    // async: a drizzle query is a thenable, not a Promise, and callers tell them apart.
    lastRuns: async (job, limit) =>
      db
        .select()
        .from(pg.jobRuns)
        .where(eq(pg.jobRuns.job, job))
        .orderBy(desc(pg.jobRuns.id))
        .limit(limit),
  };
}
