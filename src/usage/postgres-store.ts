import type { SQL } from 'bun';
import { and, eq, lt } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import { usageBuckets } from '@/db/pg/schema';
import { REPLACED_TOTALS, rangeCondition } from './sqlite-store';
import type { UsageStore } from './store';

/** 7 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 1000;

/** The usage figures in PostgreSQL's `usage_buckets`; the caller owns `client`. */
export function postgresUsageStore(client: SQL): UsageStore {
  const db = pgDatabase(client);
  return {
    async save(rows) {
      if (rows.length === 0) return;
      await db.transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += CHUNK) {
          await tx
            .insert(usageBuckets)
            .values(rows.slice(i, i + CHUNK))
            .onConflictDoUpdate({
              target: [
                usageBuckets.resolution,
                usageBuckets.series,
                usageBuckets.start,
                usageBuckets.instance,
              ],
              set: REPLACED_TOTALS,
            });
        }
      });
    },
    // A drizzle query is a thenable, not a Promise: awaited here so callers can tell.
    read: async (range) =>
      await db.select().from(usageBuckets).where(rangeCondition(range, usageBuckets)),
    async deleteBefore(resolution, before) {
      const deleted = await db
        .delete(usageBuckets)
        .where(and(eq(usageBuckets.resolution, resolution), lt(usageBuckets.start, before)))
        .returning({ start: usageBuckets.start });
      return deleted.length;
    },
  };
}
