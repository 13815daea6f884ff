import type { UsageBucketRow } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';

export type Resolution = UsageBucketRow['resolution'];
export type UsageRow = UsageBucketRow;

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/** How long each resolution's buckets are kept: minutes for a day, hours for 30 days. */
export const KEPT_MS: Readonly<Record<Resolution, number>> = {
  minute: 24 * HOUR_MS,
  hour: 30 * 24 * HOUR_MS,
};

export const BUCKET_MS: Readonly<Record<Resolution, number>> = { minute: MINUTE_MS, hour: HOUR_MS };

/** Which series a read wants: one by name, or every one starting with a prefix. */
export type SeriesFilter = { series: string } | { prefix: string };

export interface UsageRange {
  resolution: Resolution;
  /** Buckets starting at or after this, epoch ms. */
  from: number;
  filter: SeriesFilter;
}

/**
 * Where the usage figures are kept (`usage_buckets`): SQLite answers at
 * once, PostgreSQL later. A save replaces an instance's rows with its
 * current totals, so saving again is harmless.
 */
export interface UsageStore {
  save(rows: readonly UsageRow[]): MaybePromise<void>;
  /** Every instance's rows in the range, in no particular order. */
  read(range: UsageRange): MaybePromise<UsageRow[]>;
  /** Deletes a resolution's buckets that started before `before`; returns how many. */
  deleteBefore(resolution: Resolution, before: number): MaybePromise<number>;
}
