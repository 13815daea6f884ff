import { epochMsNumber, integer, json, text } from './columns';
import { index, primaryKey, table } from './table';

/**
 * The usage figures behind the console's plots (docs/operations.md, "Usage
 * figures"): per series (`route:<group>` or `customer:<sub>`), per bucket
 * (a minute or an hour from `start`, epoch ms), what one instance counted.
 * Each instance writes only its own rows, so instances never contend; a read
 * sums them. `latency` is the request-latency histogram (counts per bound of
 * LATENCY_BOUNDS, the last beyond them), empty for customer calls.
 */
export const usageBuckets = table(
  'usage_buckets',
  {
    resolution: text({ enum: ['minute', 'hour'] }).notNull(),
    series: text().notNull(),
    start: epochMsNumber().notNull(),
    instance: text().notNull(),
    requests: integer().notNull(),
    errors: integer().notNull(),
    latency: json<number[]>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.resolution, t.series, t.start, t.instance] }),
    index('usage_buckets_resolution_start').on(t.resolution, t.start),
  ],
);
