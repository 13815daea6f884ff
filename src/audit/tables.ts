import type { NewAuditEvent } from '@/audit/record';
import type { MaybePromise } from '@/kernel/maybe-promise';

/** The queries of an event's write, on one store inside the action's transaction. */
export interface AuditRowTables {
  /** Counts one more event of `key`; the events counted in its window, this one included. */
  countQuota(key: string, windowEndsAt: number): MaybePromise<number>;
  insertEvent(row: NewAuditEvent): MaybePromise<void>;
  /**
   * Inserts the counted event of `row.counterKey` (count 1), or adds one to
   * it (count, lastAt) in the same statement, so concurrent events of one
   * counter are all counted and never make two rows.
   */
  countEvent(row: NewAuditEvent & { counterKey: string }): MaybePromise<void>;
}
