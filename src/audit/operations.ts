import { and, type Column, eq, gte, lt, lte, type SQL } from 'drizzle-orm';
import type { AuditRowTables } from '@/audit/tables';
import type { AuditEventRow } from '@/db/sqlite/schema';
import { type Steps, step } from '@/kernel/steps';
import {
  type AuditContext,
  type AuditEntry,
  auditRowOf,
  CALLER_ACTIONS,
  CALLER_TEXT_MAX,
  cutText,
} from './record';
import type { AuditEvent, AuditPage, AuditQuery } from './schemas';
import type { AuditPaging } from './store';

/**
 * Bounded rows (docs/accounts.md, "Bounded rows"). A caller may repeat
 * an account action as often as the limits of its route allow, but the log
 * does not grow one row a repeat. Per counter and window, the first
 * `rowsPerHour` events are written one row each and the rest are counted
 * into one more row (its `count`, its `lastAt`), so a counter writes at
 * most `rowsPerHour + 1` rows an hour, whatever the caller does.
 */
export interface AuditLimits {
  /** Rows of one caller action per counter and hour before the rest are counted (AUDIT_ROWS_PER_CALLER_PER_HOUR). */
  rowsPerHour: number;
}

export const DEFAULT_AUDIT_ROWS_PER_HOUR = 20;
export const DEFAULT_AUDIT_LIMITS: AuditLimits = { rowsPerHour: DEFAULT_AUDIT_ROWS_PER_HOUR };

const HOUR_MS = 60 * 60 * 1000;

/** How one event is counted: its counter in its window, and the rows written before counting. */
export interface Counting {
  /** Action, counter and window start: the same for every event counted together. */
  key: string;
  windowEndsAt: number;
  /** Events written one row each before the rest of the window is counted into one. */
  rowsBeforeCounting: number;
}

/**
 * The counting of an event: a refusal by its own counter and window from
 * the first event; another caller action by the account it concerns (the
 * client address as the limits count it when none) per hour after `rowsPerHour` rows; an
 * employee's or a tool's action is never counted.
 */
export function countingOf(
  context: AuditContext,
  entry: AuditEntry,
  limits: AuditLimits,
): Counting | undefined {
  const rule = entry.counter
    ? { counter: entry.counter.key, windowMs: entry.counter.windowMs, rows: 0 }
    : CALLER_ACTIONS.has(entry.action)
      ? {
          counter: entry.subject
            ? `account ${entry.subject}`
            : `address ${context.limitAddress ?? context.ip}`,
          windowMs: HOUR_MS,
          rows: limits.rowsPerHour,
        }
      : undefined;
  if (!rule) return undefined;
  const start = Math.floor(context.at / rule.windowMs) * rule.windowMs;
  return {
    key: `${entry.action} ${rule.counter} ${start}`,
    windowEndsAt: start + rule.windowMs,
    rowsBeforeCounting: rule.rows,
  };
}

/** Appends one event, or counts it (`countingOf`), written once for every store. */
export function* recordAuditSteps(
  tables: AuditRowTables,
  context: AuditContext,
  entry: AuditEntry,
  limits: AuditLimits,
): Steps<void> {
  const row = auditRowOf(context, entry);
  const counting = countingOf(context, entry, limits);
  if (!counting) return yield* step(tables.insertEvent(row));
  if (counting.rowsBeforeCounting > 0) {
    const events = yield* step(tables.countQuota(counting.key, counting.windowEndsAt));
    if (events <= counting.rowsBeforeCounting) return yield* step(tables.insertEvent(row));
  }
  yield* step(tables.countEvent({ ...row, counterKey: counting.key }));
}

export const DEFAULT_PAGE_SIZE = 20;

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

/** Events deleted per statement by the retention job, so that requests keep flowing. */
export const PRUNE_CHUNK = 5000;
