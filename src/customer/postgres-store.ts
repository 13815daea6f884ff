import type { SQL } from 'bun';
import { and, asc, type SQL as Condition, count, desc, eq, gte, lte, max, sql } from 'drizzle-orm';
import { auditRowOf } from '@/audit/record';
import { type PlanOperation, planAdministration, toPlan } from '@/customer/admin/operations';
import type { PlanTables } from '@/customer/admin/tables';
import { type PgTx, pgDatabase } from '@/db/pg/client';
import { pageAndTotalOf } from '@/db/pg/page-and-total';
import { auditEvents, employeeLimits, planAssignments, plans, transactions } from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import { runLater } from '@/kernel/steps';
import { postgresWindowPersistence } from '@/rate-limit/postgres-window-persistence';
import type { CustomerStore, TransactionListing } from './store';
import type { TransactionFilter } from './transactions/schemas';

/** 7 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 500;

/** The filters present, as SQLite's `whereOf` writes them. */
function conditionsOf(filter: TransactionFilter): Condition | undefined {
  const conditions: Condition[] = [];
  if (filter.customerId !== undefined)
    conditions.push(eq(transactions.customerId, filter.customerId));
  if (filter.payDateFrom) conditions.push(gte(transactions.payDate, filter.payDateFrom));
  if (filter.payDateTo) conditions.push(lte(transactions.payDate, filter.payDateTo));
  if (filter.amountFrom !== undefined)
    conditions.push(gte(transactions.amountCents, filter.amountFrom));
  if (filter.amountTo !== undefined)
    conditions.push(lte(transactions.amountCents, filter.amountTo));
  if (filter.bookingId !== undefined) conditions.push(eq(transactions.bookingId, filter.bookingId));
  return and(...conditions);
}

/** PostgreSQL text cannot hold NUL: no stored row equals a value with one (`holdsNul`). */
const matchesNothing = ({ customerId, bookingId }: TransactionFilter) =>
  holdsNul(customerId, bookingId);

/** The admin queries inside one PostgreSQL transaction (READ COMMITTED). */
const postgresPlanTables = (tx: PgTx): PlanTables => ({
  async lockPlans() {
    // Conflicts with itself and with every other write to plans, not with
    // reads: concurrent creates and updates run one after the other, so
    // each sees the slugs and ids the one before committed.
    await tx.execute(sql`LOCK TABLE plans IN SHARE ROW EXCLUSIVE MODE`);
  },
  async slugHolder(slug) {
    const [holder] = await tx.select({ id: plans.id }).from(plans).where(eq(plans.slug, slug));
    return holder?.id;
  },
  async highestPlanId() {
    const [highest] = await tx.select({ id: max(plans.id) }).from(plans);
    return highest?.id;
  },
  async insertPlan(id, values) {
    const [row] = await tx
      .insert(plans)
      .values({ id, ...values })
      .returning();
    return row!;
  },
  async updatePlan(id, values) {
    const [row] = await tx.update(plans).set(values).where(eq(plans.id, id)).returning();
    return row;
  },
  async deletePlan(id) {
    const [row] = await tx.delete(plans).where(eq(plans.id, id)).returning();
    return row;
  },
  async plan(id) {
    const [row] = await tx.select().from(plans).where(eq(plans.id, id));
    return row;
  },
  async planExists(id) {
    // FOR KEY SHARE: a delete of the plan waits for this transaction, then
    // cascades to the assignment it made.
    const found = await tx
      .select({ id: plans.id })
      .from(plans)
      .where(eq(plans.id, id))
      .for('key share');
    return found.length > 0;
  },
  async assignPlan(customerSub, planId) {
    await tx
      .insert(planAssignments)
      .values({ customerSub, planId })
      .onConflictDoUpdate({ target: planAssignments.customerSub, set: { planId } });
  },
  async unassignPlan(customerSub) {
    await tx.delete(planAssignments).where(eq(planAssignments.customerSub, customerSub));
  },
  async setEmployeeLimit(employeeSub, perMinute) {
    await tx
      .insert(employeeLimits)
      .values({ employeeSub, perMinute })
      .onConflictDoUpdate({ target: employeeLimits.employeeSub, set: { perMinute } });
  },
  async recordAudit(context, entry) {
    await tx.insert(auditEvents).values(auditRowOf(context, entry));
  },
});

/**
 * The customer domain on PostgreSQL (Bun's `SQL` client through drizzle's
 * `bun-sql` driver): the same operations, results and errors as
 * `sqliteCustomerStore`, every one a promise. The caller owns `client` and
 * closes it.
 */
export function postgresCustomerStore(client: SQL): CustomerStore {
  const db = pgDatabase(client);
  // The limiter's reads, built once (drizzle would build their SQL on every call).
  const planOf = db
    .select({ plan: plans })
    .from(planAssignments)
    .innerJoin(plans, eq(plans.id, planAssignments.planId))
    .where(eq(planAssignments.customerSub, sql.placeholder('sub')))
    .prepare('customer_plan');
  const employeeLimitOf = db
    .select({ perMinute: employeeLimits.perMinute })
    .from(employeeLimits)
    .where(eq(employeeLimits.employeeSub, sql.placeholder('sub')))
    .prepare('employee_limit');
  const run = <T>(operation: PlanOperation<T>): Promise<T> =>
    db.transaction((tx) => runLater(operation(postgresPlanTables(tx))));

  return {
    async listTransactions(filter, page, perPage): Promise<TransactionListing> {
      if (matchesNothing(filter)) return { total: 0, rows: [] };
      const where = conditionsOf(filter);
      // One statement, so the count and the page read one snapshot: an
      // import committing between them cannot make them disagree.
      const total = db
        .select({ total: count().as('total') })
        .from(transactions)
        .where(where);
      const rows = db
        .select()
        .from(transactions)
        .where(where)
        .orderBy(desc(transactions.payDate), desc(transactions.id))
        .limit(perPage)
        .offset((page - 1) * perPage);
      return pageAndTotalOf(
        await db.select().from(total.as('t')).leftJoinLateral(rows.as('p'), sql`true`),
      );
    },
    async importTransactions(rows) {
      await db.transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += CHUNK) {
          await tx.insert(transactions).values(rows.slice(i, i + CHUNK));
        }
      });
      return rows.length;
    },
    async listPlans() {
      return (await db.select().from(plans).orderBy(asc(plans.id))).map(toPlan);
    },
    async findPlan(id) {
      const [row] = await db.select().from(plans).where(eq(plans.id, id));
      return row && toPlan(row);
    },
    ...planAdministration(run),
    async customerPlan(sub) {
      const [found] = await planOf.execute({ sub });
      return found?.plan;
    },
    async employeeLimit(sub) {
      const [found] = await employeeLimitOf.execute({ sub });
      return found?.perMinute;
    },
    windows: postgresWindowPersistence(db),
  };
}
