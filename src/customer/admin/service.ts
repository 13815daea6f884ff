import { asc, eq, max } from 'drizzle-orm';
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
export function createPlan(db: Db, input: PlanInput): Plan {
  return db.transaction((tx) => {
    assertSlugFree(tx, input.slug);
    const highest =
      tx
        .select({ id: max(plans.id) })
        .from(plans)
        .get()?.id ?? 0;
    const id = Math.max(highest, EMPLOYEE_PLAN.id) + 1;
    return toPlan(
      tx
        .insert(plans)
        .values({ id, ...columnsOf(input) })
        .returning()
        .get(),
    );
  });
}

/** Stored plan ids are integers; anything else (or a built-in id) is simply not found. */
export function planIdOf(raw: string): number {
  const id = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(id > EMPLOYEE_PLAN.id)) throw fail('plan.not_found');
  return id;
}

export function updatePlan(db: Db, id: number, input: PlanInput): Plan {
  return db.transaction((tx) => {
    assertSlugFree(tx, input.slug, id);
    const row = tx.update(plans).set(columnsOf(input)).where(eq(plans.id, id)).returning().get();
    if (!row) throw fail('plan.not_found');
    return toPlan(row);
  });
}

/** Customers on a deleted plan return to Standard (the assignment cascades). */
export function deletePlan(db: Db, id: number): void {
  const deleted = db.delete(plans).where(eq(plans.id, id)).returning({ id: plans.id }).get();
  if (!deleted) throw fail('plan.not_found');
}

/** `null` (or the Standard id) returns the customer to the built-in Standard plan. */
export function assignPlan(db: Db, customerSub: string, planId: number | null): void {
  db.transaction((tx) => {
    if (planId === null || planId === STANDARD_PLAN.id) {
      tx.delete(planAssignments).where(eq(planAssignments.customerSub, customerSub)).run();
      return;
    }
    if (!tx.select({ id: plans.id }).from(plans).where(eq(plans.id, planId)).get()) {
      throw fieldError(['planId'], 'exists', 'The selected plan id is invalid.');
    }
    tx.insert(planAssignments)
      .values({ customerSub, planId })
      .onConflictDoUpdate({ target: planAssignments.customerSub, set: { planId } })
      .run();
  });
}

export function setEmployeeLimit(db: Db, employeeSub: string, perMinute: number): void {
  db.insert(employeeLimits)
    .values({ employeeSub, perMinute })
    .onConflictDoUpdate({ target: employeeLimits.employeeSub, set: { perMinute } })
    .run();
}
