import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { LimitKey, RateLimiter } from './limiter';
import type { Quota } from './records';
import type { WindowUsage } from './store';

/**
 * One request counted (or, for a free one, only looked at), with what its
 * rate-limit headers show (none when nothing was counted).
 */
export interface Counted {
  admitted: boolean;
  windows: readonly WindowUsage[];
  quota?: Quota;
}

const UNCOUNTED: Counted = Object.freeze({ admitted: true, windows: [] });

/**
 * A request's one count: `hit`, or `peek` for a request that does not
 * consume quota (`free`), with the quota the rate-limit headers show;
 * admitted without a quota when the limiter is off. The request pipeline
 * and the fast lane both count through this.
 */
export function countRequest(
  limiter: RateLimiter,
  limitKey: LimitKey,
  free: boolean,
): MaybePromise<Counted> {
  if (!limiter.enabled) return UNCOUNTED;
  const counted = (admitted: boolean, windows: readonly WindowUsage[]): Counted => ({
    admitted,
    windows,
    quota: limiter.quota(windows),
  });
  if (free) return whenReady(limiter.peek(limitKey), (windows) => counted(true, windows));
  return whenReady(limiter.hit(limitKey), (result) => counted(result.admitted, result.windows));
}
