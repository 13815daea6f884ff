import type { MaybePromise } from '@/kernel/maybe-promise';
import type { AuditContext, AuditEntry } from './record';
import type { AuditPage, AuditQuery } from './schemas';

export interface AuditPaging {
  cursor?: string;
  limit?: number;
}

/**
 * The audit log's read side and retention. Events are appended by the
 * actions themselves, in their own transactions (`recordAudit`, or
 * `recordAuditLater` in a PostgreSQL store), and never changed but for a
 * counted event's count; a trigger on each database refuses any other update. `sqliteAuditLog` answers at once,
 * `postgresAuditLog` with promises.
 */
export interface AuditLogStore {
  /** The security log of one account: the events that concern it. */
  securityLogOf(userId: string, paging: AuditPaging): MaybePromise<AuditPage>;
  /** The operators' view: every event, by actor, subject, action and time range. */
  searchAudit(query: AuditQuery): MaybePromise<AuditPage>;
  /** Deletes the events older than `before` (ms), oldest first in chunks; the number deleted. */
  pruneAudit(before: number): MaybePromise<number>;
  /** Forgets the counters of the windows ended by `now` (ms); the number deleted. */
  pruneAuditQuotas(now: number): MaybePromise<number>;
  /**
   * Appends the event of an action that wrote nothing of its own (a job run
   * on demand); an action that writes records its event in its own transaction.
   */
  record(context: AuditContext, entry: AuditEntry): MaybePromise<void>;
}
