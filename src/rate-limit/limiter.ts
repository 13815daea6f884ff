import type { Caller } from '@/auth/tokens';
import type { Config } from '@/config';
import type { PlanRow } from '@/db/schema';
import type { Clock } from '@/kernel/clock';
import { type DomainError, fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import { CALENDAR_KINDS, secondsUntil, type WindowKind } from './calendar';
import { MemoryStore } from './memory-store';
import { planLimitsOf, rateLimitHeaders, tightestOf, windowRecord } from './records';
import type { HitResult, RateLimitStore, WindowRule, WindowUsage } from './store';
import type { WindowPersistence } from './window-persistence';

export interface PlanRef {
  id: number;
  name: string;
  slug: string;
}

/**
 * Built-in plans, never stored: customers without a plan get Standard,
 * employees Employee; stored plans take ids from 3.
 */
export const STANDARD_PLAN: PlanRef = Object.freeze({ id: 1, name: 'Standard', slug: 'standard' });
export const EMPLOYEE_PLAN: PlanRef = Object.freeze({ id: 2, name: 'Employee', slug: 'employee' });
/** An employee's per-minute limit is never below this. */
export const EMPLOYEE_MINIMUM_PER_MINUTE = 2000;

export type LimitAudience = 'anonymous' | 'customer' | 'employee';

/** Who a request is counted against: an IP, a customer or an employee. */
export interface LimitKey {
  key: string;
  audience: LimitAudience;
}

interface Policy {
  plan: PlanRef;
  rules: WindowRule[];
}

/** Policies cached at most for this many customers/employees before starting over. */
const MAX_CACHED_POLICIES = 10_000;

/** What `memoReport` built for one subject, and the figures it was built from. */
interface ReportMemo {
  policy: Policy;
  figures: number[];
  value: unknown;
}

/**
 * Where the limiter reads plans and employee limits and keeps calendar
 * usage: the customer domain's store (`src/customer/store.ts`), SQLite
 * answering at once, PostgreSQL later.
 */
export interface LimiterRecords {
  /** The stored plan assigned to a customer; undefined: Standard. */
  customerPlan(sub: string): MaybePromise<PlanRow | undefined>;
  /** An employee's own per-minute limit; undefined: the configured one. */
  employeeLimit(sub: string): MaybePromise<number | undefined>;
  windows: WindowPersistence;
}

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
 * who is counted, which windows apply to them, and how usage is reported
 * (records, headers, 429). Usage itself lives in a `RateLimitStore`.
 */
export class RateLimiter {
  readonly enabled: boolean;
  readonly store: RateLimitStore;
  /** 429s since start, by the window that refused (the one that resets last). */
  readonly refusals = new Map<WindowKind, number>();
  readonly #config: Config['rateLimits'];
  readonly #clock: Clock;
  readonly #policies = new Map<string, Policy>();
  readonly #notices: PolicyNotices | undefined;
  readonly #limitKeys = new WeakMap<Caller, LimitKey>();
  readonly #reportMemos = new Map<string, ReportMemo>();
  /** Values `memoReport` gave again instead of building them (tests and diagnostics). */
  reportMemoHits = 0;
  /**
   * The policy each subject was last counted by, kept across `invalidate`:
   * with records that answer later, a report made after its count may find
   * the cache emptied meanwhile, and shows the policy the count used.
   */
  readonly #counted = new Map<string, Policy>();
  /**
   * Counts `invalidate` calls. A policy read from records that answer later
   * may have started before an admin change committed: it serves the
   * request that asked, and is kept only when no change came meanwhile.
   */
  #generation = 0;
  readonly #anonymous: Policy;
  readonly #records: LimiterRecords;
  readonly #calls: RateLimiterOptions['calls'];

  constructor({ records, config, clock, logger, store, notices, calls }: RateLimiterOptions) {
    this.#calls = calls;
    this.enabled = config.rateLimits.enabled;
    this.#notices = notices;
    notices?.listen(() => this.#forget());
    this.#config = config.rateLimits;
    this.#clock = clock;
    this.#records = records;
    this.store = store ?? new MemoryStore({ persistence: records.windows, logger });
    this.#anonymous = {
      plan: STANDARD_PLAN,
      rules: [{ kind: 'minute', limit: config.rateLimits.anonymous }],
    };
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
    return whenReady(this.#policy(limitKey), (policy) =>
      this.store.hit(limitKey.key, policy.rules, this.#clock()),
    );
  }

  /** Usage without counting (GET /api/v1/tokens/limits). */
  peek(limitKey: LimitKey): MaybePromise<WindowUsage[]> {
    return whenReady(this.#policy(limitKey), (policy) =>
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
      plan: { ...this.#countedPolicy(this.limitKeyOf(caller, '')).plan },
      limits: windows.map((usage) => windowRecord(usage, now)),
    };
  }

  /**
   * RateLimit-Policy lists every window; RateLimit and X-RateLimit-* describe
   * the window closest to refusing (draft-ietf-httpapi-ratelimit-headers).
   */
  headers(
    windows: readonly WindowUsage[],
    into: Record<string, string | number> = {},
  ): Record<string, string | number> {
    return Object.assign(into, this.headerValues(windows));
  }

  /** The same headers as a new object. */
  headerValues(windows: readonly WindowUsage[], now = this.#clock()): Record<string, string> {
    return rateLimitHeaders(windows, now);
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
   * a report or the rate-limit headers show has moved since: they are made
   * of the policy and, per window, its limit, use, reset second and whole
   * seconds to the reset. A client polling its limits gets the same answer
   * back, built once a second or once per change of its usage, instead of a
   * report, its JSON and its headers per request.
   */
  memoReport<T>(limitKey: LimitKey, windows: readonly WindowUsage[], build: (now: number) => T): T {
    const policy = this.#countedPolicy(limitKey);
    const now = this.#clock();
    const figures: number[] = [];
    for (const usage of windows) {
      figures.push(
        usage.limit,
        usage.used,
        Math.ceil(usage.resetAt / 1000),
        secondsUntil(usage.resetAt, now),
      );
    }
    const known = this.#reportMemos.get(limitKey.key);
    if (known && known.policy === policy && sameNumbers(known.figures, figures)) {
      this.reportMemoHits++;
      return known.value as T;
    }
    const value = build(now);
    if (this.#reportMemos.size >= MAX_CACHED_POLICIES) this.#reportMemos.clear();
    this.#reportMemos.set(limitKey.key, { policy, figures, value });
    return value;
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
    this.#generation++;
    this.#policies.clear();
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

  #policy(limitKey: LimitKey): MaybePromise<Policy> {
    if (limitKey.audience === 'anonymous') return this.#anonymous;
    const cached = this.#policies.get(limitKey.key);
    if (cached) return cached;
    const sub = limitKey.key.slice(2);
    const generation = this.#generation;
    const read =
      limitKey.audience === 'employee'
        ? whenReady(this.#records.employeeLimit(sub), (own) => this.#employeePolicy(own))
        : whenReady(this.#records.customerPlan(sub), (row) => this.#customerPolicy(row));
    return whenReady(read, (policy) => {
      if (generation === this.#generation) {
        if (this.#policies.size >= MAX_CACHED_POLICIES) this.#policies.clear();
        this.#policies.set(limitKey.key, policy);
      }
      if (this.#counted.size >= MAX_CACHED_POLICIES) this.#counted.clear();
      this.#counted.set(limitKey.key, policy);
      return policy;
    });
  }

  /**
   * The policy of a subject whose usage was just looked at (`hit` or
   * `peek` read its policy first): at once with records that answer at
   * once, else the one that look used.
   */
  #countedPolicy(limitKey: LimitKey): Policy {
    const policy = this.#policy(limitKey);
    if (!(policy instanceof Promise)) return policy;
    // Nothing calls this before counting or looking; a promise means
    // `invalidate` ran in between, and the policy counted by stands (the
    // read just started refills the cache for the next request).
    policy.catch(() => {});
    const counted = this.#counted.get(limitKey.key);
    if (!counted) throw new Error(`no policy was read for ${limitKey.key} before its report`);
    return counted;
  }

  #employeePolicy(own = this.#config.employee): Policy {
    return {
      plan: EMPLOYEE_PLAN,
      rules: [{ kind: 'minute', limit: Math.max(EMPLOYEE_MINIMUM_PER_MINUTE, own) }],
    };
  }

  #customerPolicy(row: PlanRow | undefined): Policy {
    if (!row)
      return { plan: STANDARD_PLAN, rules: [{ kind: 'minute', limit: this.#config.customer }] };
    const limits = planLimitsOf(row);
    // A plan `minute` lowers the sliding base window; it never raises it.
    const minute = Math.min(this.#config.customer, limits.minute ?? Number.POSITIVE_INFINITY);
    const rules: WindowRule[] = [{ kind: 'minute', limit: minute }];
    for (const kind of CALENDAR_KINDS) {
      const limit = limits[kind];
      if (limit !== undefined) rules.push({ kind, limit });
    }
    return { plan: { id: row.id, name: row.name, slug: row.slug }, rules };
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
