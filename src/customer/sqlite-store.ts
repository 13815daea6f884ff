import { asc, eq, max, sql } from 'drizzle-orm';
import { recordAudit } from '@/audit/sqlite-store';
import { type PlanOperation, planAdministration, toPlan } from '@/customer/admin/operations';
import type { PlanTables } from '@/customer/admin/tables';
import type { Db, Tx } from '@/db/sqlite/client';
import {
  employeeLimits,
  planAssignments,
  plans,
  type TransactionRow,
  transactions,
} from '@/db/sqlite/schema';
import { readSnapshot } from '@/db/sqlite/snapshot';
import { type Bindings, Conditions } from '@/db/sqlite/where';
import { runNow } from '@/kernel/steps';
import { sqliteWindowPersistence } from '@/rate-limit/window-persistence';
import type { CustomerStore, TransactionListing } from './store';
import type { TransactionFilter } from './transactions/schemas';

const COLUMNS = `id, customer_id AS customerId, booking_id AS bookingId,
  amount_cents AS amountCents, currency, pay_date AS payDate, status, description`;

/** The WHERE clause of the filters present (plain SQL, see `Conditions`). */
function whereOf(filter: TransactionFilter): Conditions {
  const where = new Conditions();
  if (filter.customerId !== undefined) where.add('customer_id = ?', filter.customerId);
  if (filter.payDateFrom) where.add('pay_date >= ?', filter.payDateFrom);
  if (filter.payDateTo) where.add('pay_date <= ?', filter.payDateTo);
  if (filter.amountFrom !== undefined) where.add('amount_cents >= ?', filter.amountFrom);
  if (filter.amountTo !== undefined) where.add('amount_cents <= ?', filter.amountTo);
  if (filter.bookingId !== undefined) where.add('booking_id = ?', filter.bookingId);
  return where;
}

function listTransactions(
  db: Db,
  filter: TransactionFilter,
  page: number,
  perPage: number,
): TransactionListing {
  const { sql, params } = whereOf(filter);
  const client = db.$client;
  const offset = (page - 1) * perPage;
  // One read transaction: the total and the page see the same snapshot.
  return readSnapshot(client, () => {
    const total = client
      .query<{ n: number }, Bindings>(`SELECT count(*) AS n FROM transactions ${sql}`)
      .get(...params)!.n;
    const rows =
      total > offset
        ? client
            .query<TransactionRow, Bindings>(
              `SELECT ${COLUMNS} FROM transactions ${sql} ORDER BY pay_date DESC, id DESC LIMIT ? OFFSET ?`,
            )
            .all(...params, perPage, offset)
        : [];
    return { total, rows };
  });
}

/** SQLite binds at most 32766 variables: 8 columns × 500 rows stays well below. */
const CHUNK = 500;

/** The admin queries inside one SQLite transaction; every one answers at once. */
const sqlitePlanTables = (tx: Tx): PlanTables => ({
  // SQLite admits one writer at a time: the transaction already excludes other plan writes.
  lockPlans: () => {},
  slugHolder: (slug) =>
    tx.select({ id: plans.id }).from(plans).where(eq(plans.slug, slug)).get()?.id,
  highestPlanId: () =>
    tx
      .select({ id: max(plans.id) })
      .from(plans)
      .get()?.id,
  insertPlan: (id, values) =>
    tx
      .insert(plans)
      .values({ id, ...values })
      .returning()
      .get(),
  updatePlan: (id, values) =>
    tx.update(plans).set(values).where(eq(plans.id, id)).returning().get(),
  deletePlan: (id) => tx.delete(plans).where(eq(plans.id, id)).returning().get(),
  plan: (id) => tx.select().from(plans).where(eq(plans.id, id)).get(),
  planExists: (id) =>
    tx.select({ id: plans.id }).from(plans).where(eq(plans.id, id)).get() !== undefined,
  assignPlan: (customerSub, planId) => {
    tx.insert(planAssignments)
      .values({ customerSub, planId })
      .onConflictDoUpdate({ target: planAssignments.customerSub, set: { planId } })
      .run();
  },
  unassignPlan: (customerSub) => {
    tx.delete(planAssignments).where(eq(planAssignments.customerSub, customerSub)).run();
  },
  setEmployeeLimit: (employeeSub, perMinute) => {
    tx.insert(employeeLimits)
      .values({ employeeSub, perMinute })
      .onConflictDoUpdate({ target: employeeLimits.employeeSub, set: { perMinute } })
      .run();
  },
  recordAudit: (context, entry) => recordAudit(tx, context, entry),
});

/**
 * The customer domain on `bun:sqlite`: every method answers at once, each
 * write in one synchronous transaction (nothing inside it is awaited). Its
 * reads are typed as plain values (scripts and the read cache use them
 * so); the administration methods share `CustomerStore`'s types.
 */
export function sqliteCustomerStore(db: Db) {
  const run = <T>(operation: PlanOperation<T>): T =>
    db.transaction((tx) => runNow(operation(sqlitePlanTables(tx))));
  const planQuery = db
    .select({ plan: plans })
    .from(planAssignments)
    .innerJoin(plans, eq(plans.id, planAssignments.planId))
    .where(eq(planAssignments.customerSub, sql.placeholder('sub')))
    .prepare();
  const employeeQuery = db
    .select({ perMinute: employeeLimits.perMinute })
    .from(employeeLimits)
    .where(eq(employeeLimits.employeeSub, sql.placeholder('sub')))
    .prepare();
  return {
    listTransactions: (filter: TransactionFilter, page: number, perPage: number) =>
      listTransactions(db, filter, page, perPage),
    importTransactions(rows) {
      db.transaction((tx) => {
        for (let i = 0; i < rows.length; i += CHUNK) {
          tx.insert(transactions)
            .values(rows.slice(i, i + CHUNK))
            .run();
        }
      });
      return rows.length;
    },
    listPlans: () => db.select().from(plans).orderBy(asc(plans.id)).all().map(toPlan),
    findPlan(id) {
      const row = db.select().from(plans).where(eq(plans.id, id)).get();
      return row && toPlan(row);
    },
    ...planAdministration(run),
    customerPlan: (sub) => planQuery.get({ sub })?.plan,
    employeeLimit: (sub) => employeeQuery.get({ sub })?.perMinute,
    windows: sqliteWindowPersistence(db),
  } satisfies CustomerStore;
}
