import { asc, eq, max } from 'drizzle-orm';
import { type AuditContext, recordAudit } from '@/audit/record';
import type { Plan, PlanInput } from '@/customer/admin/schemas';
import type { Db } from '@/db/client';
import { employeeLimits, type PlanRow, planAssignments, plans } from '@/db/schema';
import { fail, fieldError } from '@/kernel/errors';
import { EMPLOYEE_PLAN, STANDARD_PLAN } from '@/rate-limit/limiter';
import { planLimitsOf } from '@/rate-limit/records';

const BUILT_IN_SLUGS = new Set([STANDARD_PLAN.slug, EMPLOYEE_PLAN.slug]);

const toPlan = (row: PlanRow): Plan => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  limits: planLimitsOf(row),
});

const columnsOf = ({ name, slug, limits }: PlanInput) => ({
  name,
  slug,
  minuteLimit: limits.minute ?? null,
  hourLimit: limits.hour ?? null,
  dayLimit: limits.day ?? null,
  weekLimit: limits.week ?? null,
  monthLimit: limits.month ?? null,
});

/** Stored plans only; the built-in Standard and Employee plans cannot be edited. */
export const listPlans = (db: Db) =>
  db.select().from(plans).orderBy(asc(plans.id)).all().map(toPlan);

function assertSlugFree(tx: Pick<Db, 'select'>, slug: string, exceptId?: number) {
  const holder = tx.select({ id: plans.id }).from(plans).where(eq(plans.slug, slug)).get();
  if (BUILT_IN_SLUGS.has(slug) || (holder && holder.id !== exceptId)) {
    throw fieldError(['slug'], 'unique', 'The slug has already been taken.');
  }
}

/** Ids 1 and 2 are the built-in plans, so stored ones start at 3. */
export function createPlan(db: Db, input: PlanInput, audit: AuditContext): Plan {
  return db.transaction((tx) => {
    assertSlugFree(tx, input.slug);
    const highest =
      tx
        .select({ id: max(plans.id) })
        .from(plans)
        .get()?.id ?? 0;
    const id = Math.max(highest, EMPLOYEE_PLAN.id) + 1;
    const plan = toPlan(
      tx
        .insert(plans)
        .values({ id, ...columnsOf(input) })
        .returning()
        .get(),
    );
    recordAudit(tx, audit, { action: 'plan.created', target: String(id), details: { ...plan } });
    return plan;
  });
}

/** Stored plan ids are integers; anything else (or a built-in id) is simply not found. */
export function planIdOf(raw: string): number {
  const id = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(id > EMPLOYEE_PLAN.id)) throw fail('plan.not_found');
  return id;
}

export function updatePlan(db: Db, id: number, input: PlanInput, audit: AuditContext): Plan {
  return db.transaction((tx) => {
    assertSlugFree(tx, input.slug, id);
    const row = tx.update(plans).set(columnsOf(input)).where(eq(plans.id, id)).returning().get();
    if (!row) throw fail('plan.not_found');
    const plan = toPlan(row);
    recordAudit(tx, audit, { action: 'plan.changed', target: String(id), details: { ...plan } });
    return plan;
  });
}

/** Customers on a deleted plan return to Standard (the assignment cascades). */
export function deletePlan(db: Db, id: number, audit: AuditContext): void {
  db.transaction((tx) => {
    const deleted = tx.delete(plans).where(eq(plans.id, id)).returning().get();
    if (!deleted) throw fail('plan.not_found');
    const details = { name: deleted.name, slug: deleted.slug };
    recordAudit(tx, audit, { action: 'plan.deleted', target: String(id), details });
  });
}

/** `null` (or the Standard id) returns the customer to the built-in Standard plan. */
export function assignPlan(
  db: Db,
  customerSub: string,
  planId: number | null,
  audit: AuditContext,
): void {
  db.transaction((tx) => {
    // The customer's own security log shows the change of its plan.
    const entry = { action: 'customer_plan.set', subject: customerSub } as const;
    if (planId === null || planId === STANDARD_PLAN.id) {
      tx.delete(planAssignments).where(eq(planAssignments.customerSub, customerSub)).run();
      recordAudit(tx, audit, { ...entry, target: String(STANDARD_PLAN.id) });
      return;
    }
    if (!tx.select({ id: plans.id }).from(plans).where(eq(plans.id, planId)).get()) {
      throw fieldError(['planId'], 'exists', 'The selected plan id is invalid.');
    }
    tx.insert(planAssignments)
      .values({ customerSub, planId })
      .onConflictDoUpdate({ target: planAssignments.customerSub, set: { planId } })
      .run();
    recordAudit(tx, audit, { ...entry, target: String(planId) });
  });
}

export function setEmployeeLimit(
  db: Db,
  employeeSub: string,
  perMinute: number,
  audit: AuditContext,
): void {
  db.transaction((tx) => {
    tx.insert(employeeLimits)
      .values({ employeeSub, perMinute })
      .onConflictDoUpdate({ target: employeeLimits.employeeSub, set: { perMinute } })
      .run();
    const entry = { action: 'employee_limit.set', subject: employeeSub } as const;
    recordAudit(tx, audit, { ...entry, details: { perMinute } });
  });
}
