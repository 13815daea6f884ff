import type { AuditContext } from '@/audit/record';
import type { Plan, PlanInput } from '@/customer/admin/schemas';
import type { PlanTables, PlanValues } from '@/customer/admin/tables';
import type { CustomerStore } from '@/customer/store';
import type { PlanRow } from '@/db/sqlite/schema';
import { fail, fieldError } from '@/kernel/errors';
import { etagOfJson } from '@/kernel/etag';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { ensureMatches } from '@/kernel/preconditions';
import { type Steps, step } from '@/kernel/steps';
import { EMPLOYEE_PLAN, STANDARD_PLAN } from '@/rate-limit/limiter';
import { planLimitsOf } from '@/rate-limit/records';

/**
 * The rules of plan administration, written once for every store: each
 * operation yields the queries it needs (`src/kernel/steps.ts`) to the
 * store's `PlanTables`, which runs them inside its own transaction, at once
 * on SQLite and awaited on PostgreSQL.
 */

const BUILT_IN_SLUGS = new Set([STANDARD_PLAN.slug, EMPLOYEE_PLAN.slug]);

/** One administration step, run by a store inside one of its transactions. */
export type PlanOperation<T> = (tables: PlanTables) => Steps<T>;

export const toPlan = (row: PlanRow): Plan => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  limits: planLimitsOf(row),
});

const valuesOf = ({ name, slug, limits }: PlanInput): PlanValues => ({
  name,
  slug,
  minuteLimit: limits.minute ?? null,
  hourLimit: limits.hour ?? null,
  dayLimit: limits.day ?? null,
  weekLimit: limits.week ?? null,
  monthLimit: limits.month ?? null,
});

/** Stored plan ids are integers; anything else (or a built-in id) is simply not found. */
export function planIdOf(raw: string): number {
  const id = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(id > EMPLOYEE_PLAN.id)) throw fail('plan.not_found');
  return id;
}

function* assertSlugFree(tables: PlanTables, slug: string, exceptId?: number): Steps<void> {
  const holder = yield* step(tables.slugHolder(slug));
  if (BUILT_IN_SLUGS.has(slug) || (holder !== undefined && holder !== exceptId)) {
    throw fieldError(['slug'], 'unique', 'The slug has already been taken.');
  }
}

/** Ids 1 and 2 are the built-in plans, so stored ones start at 3. */
export const createPlan = (input: PlanInput, audit: AuditContext): PlanOperation<Plan> =>
  function* (tables) {
    yield* step(tables.lockPlans());
    yield* assertSlugFree(tables, input.slug);
    const highest = (yield* step(tables.highestPlanId())) ?? 0;
    const id = Math.max(highest, EMPLOYEE_PLAN.id) + 1;
    const plan = toPlan(yield* step(tables.insertPlan(id, valuesOf(input))));
    const entry = { action: 'plan.created', target: String(id), details: { ...plan } } as const;
    yield* step(tables.recordAudit(audit, entry));
    return plan;
  };

/**
 * The strong ETag of a plan: of its JSON as GET /admin/plans lists it (and
 * as POST and PUT answer it), so a client holding the entry holds its tag.
 */
export const planETag = (plan: Plan): string => etagOfJson(plan);

/** 404 when the plan is gone, then 412 when `ifMatch` names another version (after `lockPlans`). */
function* ensurePlanMatches(tables: PlanTables, id: number, ifMatch: string): Steps<void> {
  const row = yield* step(tables.plan(id));
  if (!row) throw fail('plan.not_found');
  ensureMatches(ifMatch, planETag(toPlan(row)));
}

export const updatePlan = (
  id: number,
  input: PlanInput,
  audit: AuditContext,
  ifMatch?: string,
): PlanOperation<Plan> =>
  function* (tables) {
    yield* step(tables.lockPlans());
    if (ifMatch !== undefined) yield* ensurePlanMatches(tables, id, ifMatch);
    yield* assertSlugFree(tables, input.slug, id);
    const row = yield* step(tables.updatePlan(id, valuesOf(input)));
    if (!row) throw fail('plan.not_found');
    const plan = toPlan(row);
    const entry = { action: 'plan.changed', target: String(id), details: { ...plan } } as const;
    yield* step(tables.recordAudit(audit, entry));
    return plan;
  };

/** Customers on a deleted plan return to Standard (the assignment cascades). */
export const deletePlan = (
  id: number,
  audit: AuditContext,
  ifMatch?: string,
): PlanOperation<void> =>
  function* (tables) {
    if (ifMatch !== undefined) {
      yield* step(tables.lockPlans());
      yield* ensurePlanMatches(tables, id, ifMatch);
    }
    const deleted = yield* step(tables.deletePlan(id));
    if (!deleted) throw fail('plan.not_found');
    const details = { name: deleted.name, slug: deleted.slug };
    yield* step(tables.recordAudit(audit, { action: 'plan.deleted', target: String(id), details }));
  };

/** `null` (or the Standard id) returns the customer to the built-in Standard plan. */
export const assignPlan = (
  customerSub: string,
  planId: number | null,
  audit: AuditContext,
): PlanOperation<void> =>
  function* (tables) {
    // The customer's own security log shows the change of its plan.
    const entry = { action: 'customer_plan.set', subject: customerSub } as const;
    if (planId === null || planId === STANDARD_PLAN.id) {
      yield* step(tables.unassignPlan(customerSub));
      yield* step(tables.recordAudit(audit, { ...entry, target: String(STANDARD_PLAN.id) }));
      return;
    }
    if (!(yield* step(tables.planExists(planId)))) {
      throw fieldError(['planId'], 'exists', 'The selected plan id is invalid.');
    }
    yield* step(tables.assignPlan(customerSub, planId));
    yield* step(tables.recordAudit(audit, { ...entry, target: String(planId) }));
  };

export const setEmployeeLimit = (
  employeeSub: string,
  perMinute: number,
  audit: AuditContext,
): PlanOperation<void> =>
  function* (tables) {
    yield* step(tables.setEmployeeLimit(employeeSub, perMinute));
    const entry = { action: 'employee_limit.set', subject: employeeSub } as const;
    yield* step(tables.recordAudit(audit, { ...entry, details: { perMinute } }));
  };

/**
 * A store's administration methods: each operation run by `run` inside one
 * transaction of the store (at once on SQLite, awaited on PostgreSQL).
 */
export const planAdministration = (
  run: <T>(operation: PlanOperation<T>) => MaybePromise<T>,
): Pick<
  CustomerStore,
  'createPlan' | 'updatePlan' | 'deletePlan' | 'assignPlan' | 'setEmployeeLimit'
> => ({
  createPlan: (input, audit) => run(createPlan(input, audit)),
  updatePlan: (id, input, audit, ifMatch) => run(updatePlan(id, input, audit, ifMatch)),
  deletePlan: (id, audit, ifMatch) => run(deletePlan(id, audit, ifMatch)),
  assignPlan: (customerSub, planId, audit) => run(assignPlan(customerSub, planId, audit)),
  setEmployeeLimit: (employeeSub, perMinute, audit) =>
    run(setEmployeeLimit(employeeSub, perMinute, audit)),
});
