import type { Caller } from '@/auth/tokens';
import type { Config } from '@/config';
import type { Clock } from '@/kernel/clock';
import { type DomainError, fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import type { WindowKind } from './calendar';
import { MemoryStore } from './memory-store';
import { type LimiterRecords, type LimitKey, Policies } from './policies';
import { type Quota, quotaOf, tightestOf, windowRecord } from './records';
import { ReportMemos } from './report-memo';
import type { HitResult, RateLimitStore, WindowUsage } from './store';

export { EMPLOYEE_MINIMUM_PER_MINUTE } from '@/config/env';
export {
  EMPLOYEE_PLAN,
  type LimiterRecords,
  type LimitKey,
  type PlanRef,
  STANDARD_PLAN,
} from './policies';

/**
 * How the instances tell each other that plans or employee limits changed
 * (Redis pub/sub with REDIS_URL): `announce` resolves once the notice is
 * sent, and `listen` hears every instance's notices.
 */
export interface PolicyNotices {
  announce(): Promise<unknown>;
  listen(listener: () => void): void;
}

export interface RateLimiterOptions {
  records: LimiterRecords;
  config: Config;
  clock: Clock;
  logger?: Logger;
  store?: RateLimitStore;
  /** Absent: one instance, whose own admin changes are all there is to hear of. */
  notices?: PolicyNotices;
  /** Told of every customer's call as it is counted (the usage figures, src/usage). */
  calls?: { countCall(sub: string): void };
}

/**
 * The customer API's rate limits (docs/customer-api.md):
 * who is counted, which windows apply to them (`Policies`), and what is
 * reported of their usage (records, the figures of the rate-limit headers,
 * the 429). Usage itself lives in a `RateLimitStore`.
 */
export class RateLimiter {
  readonly enabled: boolean;
  readonly store: RateLimitStore;
  /** 429s since start, by the window that refused (the one that resets last). */
  readonly refusals = new Map<WindowKind, number>();
  readonly #clock: Clock;
  readonly #policies: Policies;
  readonly #notices: PolicyNotices | undefined;
  readonly #limitKeys = new WeakMap<Caller, LimitKey>();
  readonly #reportMemos = new ReportMemos();
  readonly #calls: RateLimiterOptions['calls'];

  constructor({ records, config, clock, logger, store, notices, calls }: RateLimiterOptions) {
    this.#calls = calls;
    this.enabled = config.rateLimits.enabled;
    this.#notices = notices;
    notices?.listen(() => this.#forget());
    this.#clock = clock;
    this.#policies = new Policies(config.rateLimits, records);
    this.store = store ?? new MemoryStore({ persistence: records.windows, logger });
  }

  /** Values `memoReport` gave again instead of building them (tests and diagnostics). */
  get reportMemoHits(): number {
    return this.#reportMemos.hits;
  }

  /** A valid token counts against its subject; anything else against the client IP. */
  limitKeyOf(caller: Caller | null | undefined, address: string): LimitKey {
    if (!caller) return { key: `ip:${address}`, audience: 'anonymous' };
    // TokenService hands out one caller object per cached token: reuse its key.
    let limitKey = this.#limitKeys.get(caller);
    if (!limitKey) {
      limitKey =
        caller.aud === 'employee'
          ? { key: `e:${caller.sub}`, audience: 'employee' }
          : { key: `c:${caller.sub}`, audience: 'customer' };
      this.#limitKeys.set(caller, limitKey);
    }
    return limitKey;
  }

  /** Counts one request if every window has room (one atomic step of the store). */
  hit(limitKey: LimitKey): MaybePromise<HitResult> {
    if (limitKey.audience === 'customer') this.#calls?.countCall(limitKey.key.slice(2));
    return whenReady(this.#policies.of(limitKey), (policy) =>
      this.store.hit(limitKey.key, policy.rules, this.#clock()),
    );
  }

  /** Usage without counting (GET /api/v1/tokens/limits). */
  peek(limitKey: LimitKey): MaybePromise<WindowUsage[]> {
    return whenReady(this.#policies.of(limitKey), (policy) =>
      this.store.peek(limitKey.key, policy.rules, this.#clock()),
    );
  }

  async report(caller: Caller) {
    return this.reportOf(caller, await this.peek(this.limitKeyOf(caller, '')));
  }

  /** The report of `caller` from its windows as `peek` gave them. */
  reportOf(caller: Caller, windows: readonly WindowUsage[], now = this.#clock()) {
    return {
      audience: caller.aud,
      plan: { ...this.#policies.counted(this.limitKeyOf(caller, '')).plan },
      limits: windows.map((usage) => windowRecord(usage, now)),
    };
  }

  /**
   * What the rate-limit headers show of `windows`: every window, and the
   * one closest to refusing (src/api writes them).
   */
  quota(windows: readonly WindowUsage[], now = this.#clock()): Quota {
    return quotaOf(windows, now);
  }

  /** The 429 `{message, rate_limit}`, for the exhausted window that resets last. */
  rejection(windows: readonly WindowUsage[]): DomainError {
    const tightest = tightestOf(windows);
    this.refusals.set(tightest.kind, (this.refusals.get(tightest.kind) ?? 0) + 1);
    const record = windowRecord(tightest, this.#clock());
    return fail('rate_limit.exceeded', {
      retryAfterSeconds: Math.max(1, record.resets_in_seconds),
      rateLimit: record,
    });
  }

  /**
   * `build(now)`, or the value it built for `limitKey` before when nothing
   * a report or the rate-limit headers show has moved since. A client
   * polling its limits gets the same answer back, built once a second or
   * once per change of its usage, instead of a report, its JSON and its
   * headers per request.
   */
  memoReport<T>(limitKey: LimitKey, windows: readonly WindowUsage[], build: (now: number) => T): T {
    const policy = this.#policies.counted(limitKey);
    return this.#reportMemos.value(limitKey.key, policy, windows, this.#clock(), build);
  }

  /**
   * Forgets cached plans and employee limits after an admin change, here
   * and, through the notices, on every other instance; resolves once the
   * notice is sent, so the change's 2xx goes out after it.
   */
  invalidate(): MaybePromise<void> {
    this.#forget();
    if (this.#notices) return this.#notices.announce().then(() => {});
  }

  #forget(): void {
    this.#policies.forget();
    this.#reportMemos.clear();
  }

  /** Writes pending window usage; src/index.ts calls it during shutdown. */
  flush(): MaybePromise<void> {
    return this.store.flush();
  }

  /** Clears ended calendar windows in store and memory (the plan-window-reset worker). */
  async resetExpiredWindows(now = this.#clock()): Promise<{ cleared: number }> {
    return { cleared: await this.store.resetExpired(now) };
  }
}
