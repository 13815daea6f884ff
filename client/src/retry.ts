/**
 * Waits before retrying a request that failed on the way (a network error,
 * no answer in time, 502, 503 or 504): short, because such a failure is
 * usually over at once (a restart, a proxy between two upstreams).
 */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [200, 500, 1_000];
/**
 * The service's retry guidance on 429: back off with jitter — 30 s, 60 s,
 * 2 min, 5 min for attempts 1 to 4 — then stop and report.
 */
export const DEFAULT_RATE_LIMIT_DELAYS: readonly number[] = [30_000, 60_000, 120_000, 300_000];
/** ±10 % around each step, so clients that failed together do not come back together. */
export const DEFAULT_JITTER = 0.1;
/** The longest wait before a retry: the last step of the 429 schedule. */
export const DEFAULT_MAX_RETRY_DELAY = 300_000;

export interface RetryPolicy {
  /** Milliseconds to wait before retry 1, 2, …; its length is the number of retries. */
  delays: readonly number[];
  /** Fraction of each delay added or taken away at random (0 disables jitter). */
  jitter: number;
  random: () => number;
  /** A server asking for a longer wait than this is not retried at all. */
  maxDelay: number;
}

/**
 * How long to wait before retry `retry` (1-based): the schedule's step with
 * jitter, or the server's `Retry-After` when it asks for more — never less
 * than it asked, plus a little positive jitter. Null when that is longer
 * than `maxDelay`: retrying sooner than the server asked would only be
 * refused again, so the caller gets the answer at once (and its
 * `Retry-After`) to schedule the work itself.
 */
export function retryDelay(
  retry: number,
  retryAfterSeconds: number | null,
  { delays, jitter, random, maxDelay }: RetryPolicy,
): number | null {
  const base = delays[Math.min(retry, delays.length) - 1] ?? 0;
  const scheduled = base * (1 - jitter + 2 * jitter * random());
  const asked = (retryAfterSeconds ?? 0) * 1000;
  if (asked > maxDelay) return null;
  if (asked <= scheduled) return Math.round(Math.min(scheduled, maxDelay));
  return Math.round(Math.min(asked + base * jitter * random(), maxDelay));
}

/** `Retry-After` as seconds: a delay in seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export const realSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
