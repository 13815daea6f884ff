import type { SQL } from 'bun';
import { asc, desc, inArray, lt } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import { auditEvents } from '@/db/pg/schema';
import {
  type AuditLogStore,
  type AuditRead,
  auditPageOf,
  PRUNE_CHUNK,
  searchRead,
  securityLogRead,
} from './log';
import { auditRowOf } from './record';

/** A filter value PostgreSQL text cannot hold (NUL) matches no stored row; binding it would fail. */
const holdsNul = (values: readonly (string | undefined)[]) =>
  values.some((value) => value?.includes('\u0000'));

/**
 * The audit log on PostgreSQL: the same pages, filters and cursors as the
 * SQLite one, every answer a promise. A page is one statement, so one
 * snapshot; ids are assigned at insert, so an event committing late may
 * land below a cursor already passed (the audit log promises newest-first
 * pages, not a gap-free feed). The caller owns `client`.
 */
export function postgresAuditLog(client: SQL): AuditLogStore {
  const db = pgDatabase(client);
  const pageOf = async (read: AuditRead) =>
    auditPageOf(
      await db
        .select()
        .from(auditEvents)
        .where(read.where)
        .orderBy(desc(auditEvents.id))
        .limit(read.limit),
      read,
    );
  const empty = { events: [], nextCursor: null };
  return {
    async securityLogOf(userId, paging) {
      if (holdsNul([userId])) return empty;
      return pageOf(securityLogRead(auditEvents, userId, paging));
    },
    async searchAudit(query) {
      if (holdsNul([query.actor, query.subject])) return empty;
      return pageOf(searchRead(auditEvents, query));
    },
    async record(context, entry) {
      await db.insert(auditEvents).values(auditRowOf(context, entry));
    },
    async pruneAudit(before) {
      let deleted = 0;
      for (;;) {
        const ids = (
          await db
            .select({ id: auditEvents.id })
            .from(auditEvents)
            .where(lt(auditEvents.at, new Date(before)))
            .orderBy(asc(auditEvents.id))
            .limit(PRUNE_CHUNK)
        ).map((row) => row.id);
        if (ids.length === 0) return deleted;
        await db.delete(auditEvents).where(inArray(auditEvents.id, ids));
        deleted += ids.length;
      }
    },
  };
}
