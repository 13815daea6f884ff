import type { AuditContext, AuditEntry } from '@/audit/record';
import type { PlanRow } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';

/** The queries of plan administration, one store's SQL inside one transaction. */
export interface PlanTables {
  /**
   * Holds off every other plan write until this transaction ends, so a
   * slug checked free stays free and the highest id stays the highest.
   * SQLite's single writer already does; PostgreSQL takes a table lock.
   */
  lockPlans(): MaybePromise<void>;
  slugHolder(slug: string): MaybePromise<number | undefined>;
  highestPlanId(): MaybePromise<number | null | undefined>;
  insertPlan(id: number, values: PlanValues): MaybePromise<PlanRow>;
  updatePlan(id: number, values: PlanValues): MaybePromise<PlanRow | undefined>;
  deletePlan(id: number): MaybePromise<PlanRow | undefined>;
  /** One stored plan (read only to check an If-Match). */
  plan(id: number): MaybePromise<PlanRow | undefined>;
  /**
   * Whether a stored plan has this id; on PostgreSQL the row is locked
   * against deletion until the transaction ends, so an assignment never
   * points at a plan deleted meanwhile.
   */
  planExists(id: number): MaybePromise<boolean>;
  assignPlan(customerSub: string, planId: number): MaybePromise<void>;
  unassignPlan(customerSub: string): MaybePromise<void>;
  setEmployeeLimit(employeeSub: string, perMinute: number): MaybePromise<void>;
  /** Appends one audit event in the same transaction (`auditRowOf`). */
  recordAudit(context: AuditContext, entry: AuditEntry): MaybePromise<void>;
}

/** A stored plan's columns but its id. */
export type PlanValues = Omit<PlanRow, 'id' | 'createdAt'>;
