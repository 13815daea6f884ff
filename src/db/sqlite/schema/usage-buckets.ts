import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The usage figures behind the console's plots (docs/operations.md, "Usage
 * figures"): per series (`route:<group>` or `customer:<sub>`), per bucket
 * (a minute or an hour from `start`, epoch ms), what one instance counted.
 * Each instance writes only its own rows, so instances never contend; a read
 * sums them. `latency` is the request-latency histogram (counts per bound of
 * LATENCY_BOUNDS, the last beyond them), empty for customer calls.
 */
export const usageBuckets = sqliteTable(
  'usage_buckets',
  {
    resolution: text({ enum: ['minute', 'hour'] }).notNull(),
    series: text().notNull(),
    start: integer().notNull(),
    instance: text().notNull(),
    requests: integer().notNull(),
    errors: integer().notNull(),
    latency: text({ mode: 'json' }).$type<number[]>().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.resolution, table.series, table.start, table.instance] }),
    index('usage_buckets_resolution_start').on(table.resolution, table.start),
  ],
);

export type UsageBucketRow = typeof usageBuckets.$inferSelect;
