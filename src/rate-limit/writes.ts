import type { Caller } from '@/auth/tokens';
import type { Config } from '@/config';
import type { Clock } from '@/kernel/clock';
import { type DomainError, fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { secondsUntil } from './calendar';
import type { Counted } from './count';
import { quotaOf } from './records';
import type { RateLimitStore, WindowRule } from './store';

/** A write counted, or refused with when its whole cost would fit. */
export interface WriteCount extends Counted {
  fitsAt?: number;
}

const UNCOUNTED: WriteCount = Object.freeze({ admitted: true, windows: [] });

export interface WriteLimiterOptions {
  /** The store the customer API's limiter counts in (shared through Redis with REDIS_URL). */
  store: RateLimitStore;
  config: Config;
  clock: Clock;
}

/**
 * The write budget of the routes outside the customer API
 * (docs/request-pipeline.md): a sliding 60-second window per signed-in
 * caller, counted in the customer API limiter's store under keys of its own,
 * so writes and customer-API requests never use up each other's room.
 * Only signed-in callers write through these routes; the anonymous ones
 * (sign-up, sign-in, passkey sign-in) are bounded per address instead.
 */
export class WriteLimiter {
  readonly enabled: boolean;
  readonly #store: RateLimitStore;
  readonly #limits: Config['rateLimits']['writes'];
  readonly #clock: Clock;

  constructor({ store, config, clock }: WriteLimiterOptions) {
    this.enabled = config.rateLimits.enabled;
    this.#store = store;
    this.#limits = config.rateLimits.writes;
    this.#clock = clock;
  }

  /** Writes per sliding minute for `caller`. */
  limitOf(caller: Caller): number {
    return caller.aud === 'employee' ? this.#limits.employee : this.#limits.customer;
  }

  /**
   * Counts `cost` writes (a batch counts what it writes; a cost above the
   * whole budget counts as the whole budget, so every request can pass in
   * an empty window) if they all fit, else none.
   */
  charge(caller: Caller, cost: number): MaybePromise<WriteCount> {
    if (!this.enabled) return UNCOUNTED;
    const limit = this.limitOf(caller);
    const rules: WindowRule[] = [{ kind: 'minute', limit }];
    const key = `w:${caller.aud === 'employee' ? 'e' : 'c'}:${caller.sub}`;
    const counted = Math.min(Math.max(1, Math.ceil(cost)), limit);
    const now = this.#clock();
    return whenReady(this.#store.hit(key, rules, now, counted), (result) => ({
      admitted: result.admitted,
      windows: result.windows,
      quota: quotaOf(result.windows, now),
      ...(result.fitsAt === undefined ? {} : { fitsAt: result.fitsAt }),
    }));
  }

  /** The 429 of a refused count: the problem body, Retry-After when the whole cost fits. */
  rejection(count: WriteCount): DomainError {
    const limit = count.windows[0]!.limit;
    const seconds = Math.max(1, secondsUntil(count.fitsAt ?? this.#clock(), this.#clock()));
    return fail('rate_limit.exceeded', {
      retryAfterSeconds: seconds,
      detail: `Too many writes: at most ${limit} a minute for this caller; retry in ${seconds} seconds`,
    });
  }
}
