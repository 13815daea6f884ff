/** Upper bounds (seconds) of the request latency histogram (GET /metrics and the usage figures). */
export const LATENCY_BOUNDS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
] as const;

/**
 * The 99th percentile of a histogram (counts per bound, the last beyond
 * them) in milliseconds: the upper bound of the bucket holding it, the
 * largest bound when it lies beyond them all; null without timings.
 */
export function p99Ms(counts: readonly number[]): number | null {
  let total = 0;
  for (const count of counts) total += count;
  if (total === 0) return null;
  const rank = Math.ceil(total * 0.99);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return LATENCY_BOUNDS[Math.min(i, LATENCY_BOUNDS.length - 1)]! * 1000;
  }
  return LATENCY_BOUNDS[LATENCY_BOUNDS.length - 1]! * 1000;
}
