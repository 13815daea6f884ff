import { whenReady } from '@/kernel/maybe-promise';
import { p99Ms } from './latency';
import { customerSeries, routeSeries } from './recorder';
import type { RequestFigures } from './schemas';
import {
  BUCKET_MS,
  HOUR_MS,
  KEPT_MS,
  type Resolution,
  type UsageRow,
  type UsageStore,
} from './store';

/** The buckets of a range, each instance's rows summed: bucket start → summed row. */
function summed(rows: readonly UsageRow[]): Map<string, Map<number, UsageRow>> {
  const bySeries = new Map<string, Map<number, UsageRow>>();
  for (const row of rows) {
    let byStart = bySeries.get(row.series);
    if (!byStart) {
      byStart = new Map();
      bySeries.set(row.series, byStart);
    }
    const sum = byStart.get(row.start);
    if (!sum) {
      byStart.set(row.start, { ...row, latency: [...row.latency] });
      continue;
    }
    sum.requests += row.requests;
    sum.errors += row.errors;
    row.latency.forEach((count, i) => {
      sum.latency[i] = (sum.latency[i] ?? 0) + count;
    });
  }
  return bySeries;
}

const byStart = (a: { start: number }, b: { start: number }) => a.start - b.start;

/**
 * Requests, 5xx answers and p99 latency per route group over the last
 * `spanMs` (capped at what the resolution keeps), every instance summed.
 */
export function requestFigures(
  store: UsageStore,
  resolution: Resolution,
  spanMs: number,
  now: number,
) {
  const bucketMs = BUCKET_MS[resolution];
  const to = now - (now % bucketMs);
  const from = to - Math.min(spanMs, KEPT_MS[resolution]) + bucketMs;
  const prefix = routeSeries('');
  return whenReady(store.read({ resolution, from, filter: { prefix } }), (rows) => {
    const groups = [...summed(rows)].map(([series, buckets]) => ({
      group: series.slice(prefix.length),
      points: [...buckets.values()]
        .map(({ start, requests, errors, latency }) => ({
          start,
          requests,
          errors,
          p99Ms: p99Ms(latency),
        }))
        .sort(byStart),
    }));
    groups.sort((a, b) => a.group.localeCompare(b.group));
    return { resolution, bucketMs, from, to, groups } satisfies RequestFigures;
  });
}

/** A customer's calls per hour over the last `hours` (every instance summed). */
export function customerCalls(store: UsageStore, sub: string, hours: number, now: number) {
  const to = now - (now % HOUR_MS);
  const from = to - (Math.min(hours * HOUR_MS, KEPT_MS.hour) - HOUR_MS);
  const series = customerSeries(sub);
  return whenReady(store.read({ resolution: 'hour', from, filter: { series } }), (rows) => ({
    sub,
    bucketMs: HOUR_MS,
    from,
    to,
    points: [...(summed(rows).get(series)?.values() ?? [])]
      .map(({ start, requests }) => ({ start, calls: requests }))
      .sort(byStart),
  }));
}

/**
 * The instances whose figures were written in the last `spanMs` (each
 * writes its own rows at most a few seconds after it counts), by name.
 */
export function instancesSeen(store: UsageStore, spanMs: number, now: number) {
  const from = now - (now % BUCKET_MS.minute) - spanMs;
  return whenReady(store.read({ resolution: 'minute', from, filter: { prefix: '' } }), (rows) =>
    [...new Set(rows.map((row) => row.instance))].sort(),
  );
}
