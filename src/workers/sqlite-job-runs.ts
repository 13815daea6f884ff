import { and, desc, eq, lte } from 'drizzle-orm';
import type { Db } from '@/db/sqlite/client';
import { jobRuns } from '@/db/sqlite/schema';
import type { JobRunStore } from '@/workers/store';
import { pastKeptRuns } from './job-runs';

/** The job-run log on SQLite: each run recorded with the prune of what is past those kept, in one transaction. */
export const sqliteJobRuns = (db: Db) =>
  ({
    record(job, row) {
      db.transaction((tx) => {
        tx.insert(jobRuns)
          .values({ job, ...row })
          .run();
        tx.delete(jobRuns)
          .where(and(eq(jobRuns.job, job), lte(jobRuns.id, pastKeptRuns(job))))
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
