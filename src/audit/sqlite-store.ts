import { and, asc, type Column, desc, eq, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/db/client';
import { type AuditEventRow, auditEvents, auditQuotas } from '@/db/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { runNow } from '@/kernel/steps';
import {
  type AuditLimits,
  type AuditRowTables,
  DEFAULT_AUDIT_LIMITS,
  recordAuditSteps,
} from './operations';
import { type AuditContext, type AuditEntry, CALLER_TEXT_MAX, cutText } from './record';
import type { AuditEvent, AuditPage, AuditQuery } from './schemas';

export const DEFAULT_PAGE_SIZE = 20;

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

/** An event as shown; caller text cut again, for rows written before it was cut on the way in. */
const toEvent = (row: AuditEventRow): AuditEvent => ({
  id: String(row.id),
  at: row.at.toISOString(),
  action: row.action,
  actor: row.actorId,
  subject: row.subjectId,
  target: row.target,
  ip: cutText(row.ip, CALLER_TEXT_MAX.ip),
  userAgent: cutText(row.userAgent, CALLER_TEXT_MAX.userAgent),
  requestId: cutText(row.requestId, CALLER_TEXT_MAX.requestId),
  details: row.details,
  count: row.count,
  lastAt: row.lastAt?.toISOString() ?? null,
});

/** The columns a filter names, of either database's `audit_events`. */
export type AuditColumns = Record<'id' | 'at' | 'actorId' | 'subjectId' | 'action', Column>;

/** A page's read: the conditions, then at most `limit` rows, newest first. */
export interface AuditRead {
  where: SQL | undefined;
  limit: number;
}

/**
 * Newest first, keyset paged on the id (ids only grow): a page is the
 * events below the cursor, so events written meanwhile never shift it.
 */
function readOf(table: AuditColumns, filters: (SQL | undefined)[], paging: AuditPaging): AuditRead {
  const below = paging.cursor === undefined ? undefined : lt(table.id, Number(paging.cursor));
  return { where: and(...filters, below), limit: (paging.limit ?? DEFAULT_PAGE_SIZE) + 1 };
}

/** The page of the rows a read found (one more than the page when there are more). */
export function auditPageOf(rows: readonly AuditEventRow[], read: AuditRead): AuditPage {
  const size = read.limit - 1;
  const events = rows.slice(0, size).map(toEvent);
  const last = events.at(-1);
  return { events, nextCursor: rows.length > size && last ? last.id : null };
}

/** `securityLogOf`'s read. */
export const securityLogRead = (table: AuditColumns, userId: string, paging: AuditPaging) =>
  readOf(table, [eq(table.subjectId, userId)], paging);

/** `searchAudit`'s read. */
export const searchRead = (table: AuditColumns, query: AuditQuery) =>
  readOf(
    table,
    [
      query.actor === undefined ? undefined : eq(table.actorId, query.actor),
      query.subject === undefined ? undefined : eq(table.subjectId, query.subject),
      query.action === undefined ? undefined : eq(table.action, query.action),
      query.from === undefined ? undefined : gte(table.at, new Date(query.from)),
      query.to === undefined ? undefined : lte(table.at, new Date(query.to)),
    ],
    query,
  );

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

/** Events deleted per statement by the retention job, so that requests keep flowing. */
export const PRUNE_CHUNK = 5000;

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
const auditRowTablesOf = (db: DbOrTx): AuditRowTables => ({
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
  runNow(recordAuditSteps(auditRowTablesOf(db), context, entry, limits));
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
