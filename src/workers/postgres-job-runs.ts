import type { SQL } from 'bun';
import { and, desc, eq, lte } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import type { JobRunStore } from '@/workers/store';
import { pastKeptRuns } from './job-runs';

/**
 * The job-run log on PostgreSQL. Instances record runs at once; two prunes of one
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
          .where(and(eq(pg.jobRuns.job, job), lte(pg.jobRuns.id, pastKeptRuns(job))));
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
