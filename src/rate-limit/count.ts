import type { LimitKey, RateLimiter } from './limiter';
import type { MaybePromise, WindowUsage } from './store';

/** One request counted (or, for a free one, only looked at), with its response headers. */
export interface Counted {
  admitted: boolean;
  windows: readonly WindowUsage[];
  headers: Readonly<Record<string, string>>;
}

const UNCOUNTED: Counted = Object.freeze({ admitted: true, windows: [], headers: {} });

/**
 * A request's one count: `hit`, or `peek` for a request that does not
 * consume quota (`free`), with the rate-limit headers of the result;
 * admitted without headers when the limiter is off. The request pipeline
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
    headers: limiter.headerValues(windows),
  });
  if (free) {
    const windows = limiter.peek(limitKey);
    return windows instanceof Promise
      ? windows.then((w) => counted(true, w))
      : counted(true, windows);
  }
  const result = limiter.hit(limitKey);
  return result instanceof Promise
    ? result.then((r) => counted(r.admitted, r.windows))
    : counted(result.admitted, result.windows);
}
