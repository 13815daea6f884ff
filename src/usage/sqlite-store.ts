import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/sqlite/client';
import { usageBuckets } from '@/db/sqlite/schema';
import type { UsageRange, UsageStore } from './store';

/** A save's update of an existing row: the instance's current totals. */
export const REPLACED_TOTALS = {
  requests: sql`excluded.requests`,
  errors: sql`excluded.errors`,
  latency: sql`excluded.latency`,
};

export const BUCKET_KEY = [
  usageBuckets.resolution,
  usageBuckets.series,
  usageBuckets.start,
  usageBuckets.instance,
];

/** `LIKE` treats `%` and `_` as patterns: a prefix is matched literally. */
export const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`;

type Column = Parameters<typeof eq>[0];

/** The rows of a range, for either dialect's `usage_buckets`. */
export function rangeCondition(
  { resolution, from, filter }: UsageRange,
  table: { resolution: Column; start: Column; series: Column },
) {
  const series =
    'series' in filter
      ? eq(table.series, filter.series)
      : sql`${table.series} LIKE ${likePrefix(filter.prefix)} ESCAPE '\\'`;
  return and(eq(table.resolution, resolution), gte(table.start, from), series);
}

export function sqliteUsageStore(db: Db): UsageStore {
  return {
    save(rows) {
      if (rows.length === 0) return;
      db.transaction((tx) => {
        for (const row of rows) {
          tx.insert(usageBuckets)
            .values(row)
            .onConflictDoUpdate({ target: BUCKET_KEY, set: REPLACED_TOTALS })
            .run();
        }
      });
    },
    read: (range) =>
      db.select().from(usageBuckets).where(rangeCondition(range, usageBuckets)).all(),
    deleteBefore: (resolution, before) =>
      db
        .delete(usageBuckets)
        .where(and(eq(usageBuckets.resolution, resolution), lt(usageBuckets.start, before)))
        .returning({ start: usageBuckets.start })
        .all().length,
  };
}
