import { and, asc, desc, eq, gte, inArray, lt, lte, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@/db/client';
import { type AuditEventRow, auditEvents } from '@/db/schema';
import type { AuditEvent, AuditPage, AuditQuery } from './schemas';

export const DEFAULT_PAGE_SIZE = 20;

const toEvent = (row: AuditEventRow): AuditEvent => ({
  id: String(row.id),
  at: row.at.toISOString(),
  action: row.action,
  actor: row.actorId,
  subject: row.subjectId,
  target: row.target,
  ip: row.ip,
  userAgent: row.userAgent,
  requestId: row.requestId,
  details: row.details,
});

/**
 * Newest first, keyset paged on the id (ids only grow): a page is the
 * events below the cursor, so events written meanwhile never shift it.
 */
function pageOf(
  db: DbOrTx,
  filters: (SQL | undefined)[],
  paging: { cursor?: string; limit?: number },
): AuditPage {
  const size = paging.limit ?? DEFAULT_PAGE_SIZE;
  const below = paging.cursor === undefined ? undefined : lt(auditEvents.id, Number(paging.cursor));
  const rows = db
    .select()
    .from(auditEvents)
    .where(and(...filters, below))
    .orderBy(desc(auditEvents.id))
    .limit(size + 1)
    .all();
  const events = rows.slice(0, size).map(toEvent);
  const last = events.at(-1);
  return { events, nextCursor: rows.length > size && last ? last.id : null };
}

/** The security log of one account: the events that concern it. */
export const securityLogOf = (
  db: DbOrTx,
  userId: string,
  paging: { cursor?: string; limit?: number },
): AuditPage => pageOf(db, [eq(auditEvents.subjectId, userId)], paging);

/** The operators' view: every event, by actor, subject, action and time range. */
export const searchAudit = (db: DbOrTx, query: AuditQuery): AuditPage =>
  pageOf(
    db,
    [
      query.actor === undefined ? undefined : eq(auditEvents.actorId, query.actor),
      query.subject === undefined ? undefined : eq(auditEvents.subjectId, query.subject),
      query.action === undefined ? undefined : eq(auditEvents.action, query.action),
      query.from === undefined ? undefined : gte(auditEvents.at, new Date(query.from)),
      query.to === undefined ? undefined : lte(auditEvents.at, new Date(query.to)),
    ],
    query,
  );

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
