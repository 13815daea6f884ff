import type { AuditContext } from '@/audit/record';
import type { Plan, PlanInput } from '@/customer/admin/schemas';
import type { TransactionRow, transactions } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { LimiterRecords } from '@/rate-limit/limiter';
import type { TransactionFilter } from './transactions/schemas';

export type NewTransaction = typeof transactions.$inferInsert;

/** One page of a filter's transactions and the filter's total, read in one snapshot. */
export interface TransactionListing {
  total: number;
  rows: TransactionRow[];
}

/**
 * Where the customer domain keeps its rows: transactions, plans, plan
 * assignments, employee limits and calendar-window usage (the limiter's
 * records). Every method is one whole operation in one transaction of the
 * store, with the same results and errors on every store; the rules live
 * outside the stores (`admin/operations.ts`, `transactions/schemas.ts`),
 * so a store holds only its SQL.
 *
 * `sqliteCustomerStore` answers every call at once, so the routes and the
 * fast lane stay synchronous on SQLite; `postgresCustomerStore` answers
 * with promises. Callers compose results with `whenReady`.
 */
export interface CustomerStore extends LimiterRecords {
  /** Newest pay date first, id breaking ties; the total counted in the same snapshot. */
  listTransactions(
    filter: TransactionFilter,
    page: number,
    perPage: number,
  ): MaybePromise<TransactionListing>;
  /** All or nothing; answers how many were stored. */
  importTransactions(rows: readonly NewTransaction[]): MaybePromise<number>;
  /** Stored plans only, by id; the built-in Standard and Employee plans cannot be edited. */
  listPlans(): MaybePromise<Plan[]>;
  /** One stored plan, undefined when there is none. */
  findPlan(id: number): MaybePromise<Plan | undefined>;
  createPlan(input: PlanInput, audit: AuditContext): MaybePromise<Plan>;
  /** `ifMatch`: the plan's ETag (or *), else 412 and nothing written. */
  updatePlan(
    id: number,
    input: PlanInput,
    audit: AuditContext,
    ifMatch?: string,
  ): MaybePromise<Plan>;
  deletePlan(id: number, audit: AuditContext, ifMatch?: string): MaybePromise<void>;
  assignPlan(customerSub: string, planId: number | null, audit: AuditContext): MaybePromise<void>;
  setEmployeeLimit(employeeSub: string, perMinute: number, audit: AuditContext): MaybePromise<void>;
}
