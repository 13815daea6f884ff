import { asc, desc, inArray, lt, lte, sql } from 'drizzle-orm';
import type { AuditRowTables } from '@/audit/tables';
import type { DbOrTx } from '@/db/sqlite/client';
import { auditEvents, auditQuotas } from '@/db/sqlite/schema';
import { runNow } from '@/kernel/steps';
import {
  type AuditLimits,
  type AuditRead,
  auditPageOf,
  DEFAULT_AUDIT_LIMITS,
  PRUNE_CHUNK,
  recordAuditSteps,
  searchRead,
  securityLogRead,
} from './operations';
import type { AuditContext, AuditEntry } from './record';
import type { AuditPage, AuditQuery } from './schemas';
import type { AuditLogStore, AuditPaging } from './store';

function pageOf(db: DbOrTx, read: AuditRead): AuditPage {
  const rows = db
    .select()
    .from(auditEvents)
    .where(read.where)
    .orderBy(desc(auditEvents.id))
    .limit(read.limit)
    .all();
  return auditPageOf(rows, read);
}

/** The security log of one account on SQLite (also inside a transaction). */
export const securityLogOf = (db: DbOrTx, userId: string, paging: AuditPaging): AuditPage =>
  pageOf(db, securityLogRead(auditEvents, userId, paging));

/** The operators' view on SQLite. */
export const searchAudit = (db: DbOrTx, query: AuditQuery): AuditPage =>
  pageOf(db, searchRead(auditEvents, query));

/** Deletes the events older than `before` (ms), oldest first in chunks; the number deleted. */
export function pruneAudit(db: DbOrTx, before: number): number {
  let deleted = 0;
  for (;;) {
    const ids = db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(lt(auditEvents.at, new Date(before)))
      .orderBy(asc(auditEvents.id))
      .limit(PRUNE_CHUNK)
      .all()
      .map((row) => row.id);
    if (ids.length === 0) return deleted;
    db.delete(auditEvents).where(inArray(auditEvents.id, ids)).run();
    deleted += ids.length;
  }
}

/** An event's writes on SQLite (also inside a transaction); every one answers at once. */
const sqliteAuditRowTables = (db: DbOrTx): AuditRowTables => ({
  countQuota: (key, windowEndsAt) =>
    db
      .insert(auditQuotas)
      .values({ key, windowEndsAt: new Date(windowEndsAt), events: 1 })
      .onConflictDoUpdate({
        target: auditQuotas.key,
        set: { events: sql`${auditQuotas.events} + 1` },
      })
      .returning({ events: auditQuotas.events })
      .get().events,
  insertEvent: (row) => {
    db.insert(auditEvents).values(row).run();
  },
  countEvent: (row) => {
    db.insert(auditEvents)
      .values(row)
      .onConflictDoUpdate({
        target: auditEvents.counterKey,
        set: { count: sql`${auditEvents.count} + 1`, lastAt: sql`excluded.at` },
      })
      .run();
  },
});

/**
 * Counts one more event of `key` in a window ending at `windowEndsAt` (the
 * counters the bounded rows keep, pruned once the window has ended); the
 * events counted in it, this one included. Also a bound of another domain's.
 */
export const countInWindow = (db: DbOrTx, key: string, windowEndsAt: number): number =>
  sqliteAuditRowTables(db).countQuota(key, windowEndsAt) as number;

/**
 * Appends one event, or counts it (`src/audit/operations.ts`). Call it with
 * the transaction of the action itself: the event commits with the action
 * or not at all.
 */
export function recordAudit(
  db: DbOrTx,
  context: AuditContext,
  entry: AuditEntry,
  limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
): void {
  runNow(recordAuditSteps(sqliteAuditRowTables(db), context, entry, limits));
}

/** Forgets the counters of the windows ended by `now`. */
export const pruneAuditQuotas = (db: DbOrTx, now: number): number =>
  db
    .delete(auditQuotas)
    .where(lte(auditQuotas.windowEndsAt, new Date(now)))
    .returning({ key: auditQuotas.key })
    .all().length;

/** The audit log on `bun:sqlite`: every answer at once. */
export const sqliteAuditLog = (db: DbOrTx) =>
  ({
    securityLogOf: (userId, paging) => securityLogOf(db, userId, paging),
    searchAudit: (query) => searchAudit(db, query),
    pruneAudit: (before) => pruneAudit(db, before),
    pruneAuditQuotas: (now) => pruneAuditQuotas(db, now),
    record: (context, entry) => recordAudit(db, context, entry),
  }) satisfies AuditLogStore;
