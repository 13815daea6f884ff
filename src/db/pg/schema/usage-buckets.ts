import { index, integer, json, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMsNumber } from './columns';

/** The console's usage figures, one row per instance and bucket (src/db/sqlite/schema/usage-buckets.ts). */
export const usageBuckets = pgTable(
  'usage_buckets',
  {
    resolution: text({ enum: ['minute', 'hour'] }).notNull(),
    series: text().notNull(),
    start: epochMsNumber().notNull(),
    instance: text().notNull(),
    requests: integer().notNull(),
    errors: integer().notNull(),
    latency: json().$type<number[]>().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.resolution, table.series, table.start, table.instance] }),
    index('usage_buckets_resolution_start').on(table.resolution, table.start),
  ],
);
