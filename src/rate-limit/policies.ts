import type { Config } from '@/config';
import { EMPLOYEE_MINIMUM_PER_MINUTE } from '@/config/env';
import type { PlanRow } from '@/db/sqlite/schema';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { CALENDAR_KINDS } from './calendar';
import { planLimitsOf } from './records';
import type { WindowRule } from './store';
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

export type LimitAudience = 'anonymous' | 'customer' | 'employee';

/** Who a request is counted against: an IP, a customer or an employee. */
export interface LimitKey {
  key: string;
  audience: LimitAudience;
}

/** The plan a subject is counted under and the windows it enforces. */
export interface Policy {
  plan: PlanRef;
  rules: WindowRule[];
}

/** Policies cached at most for this many customers/employees before starting over. */
export const MAX_CACHED_POLICIES = 10_000;

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

/** The policy of every subject, read from the records once and kept until `forget`. */
export class Policies {
  readonly #config: Config['rateLimits'];
  readonly #records: LimiterRecords;
  readonly #anonymous: Policy;
  readonly #policies = new Map<string, Policy>();
  /**
   * The policy each subject was last counted by, kept across `forget`:
   * with records that answer later, a report made after its count may find
   * the cache emptied meanwhile, and shows the policy the count used.
   */
  readonly #counted = new Map<string, Policy>();
  /**
   * Counts `forget` calls. A policy read from records that answer later
   * may have started before an admin change committed: it serves the
   * request that asked, and is kept only when no change came meanwhile.
   */
  #generation = 0;

  constructor(config: Config['rateLimits'], records: LimiterRecords) {
    this.#config = config;
    this.#records = records;
    this.#anonymous = { plan: STANDARD_PLAN, rules: [{ kind: 'minute', limit: config.anonymous }] };
  }

  /** Forgets cached plans and employee limits (an admin change). */
  forget(): void {
    this.#generation++;
    this.#policies.clear();
  }

  of(limitKey: LimitKey): MaybePromise<Policy> {
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
  counted(limitKey: LimitKey): Policy {
    const policy = this.of(limitKey);
    if (!(policy instanceof Promise)) return policy;
    // Nothing calls this before counting or looking; a promise means
    // `forget` ran in between, and the policy counted by stands (the
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
