import type { SQL } from 'bun';
import { asc, desc, inArray, lt, lte, sql } from 'drizzle-orm';
import type { AuditRowTables } from '@/audit/tables';
import { type PgDb, type PgTx, pgDatabase } from '@/db/pg/client';
import { auditEvents, auditQuotas } from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import { runLater } from '@/kernel/steps';
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
import type { AuditLogStore } from './store';

/** An event's writes on PostgreSQL, in the action's transaction (or on their own). */
const postgresAuditRowTables = (db: PgDb | PgTx): AuditRowTables => ({
  async countQuota(key, windowEndsAt) {
    const [counted] = await db
      .insert(auditQuotas)
      .values({ key, windowEndsAt: new Date(windowEndsAt), events: 1 })
      .onConflictDoUpdate({
        target: auditQuotas.key,
        set: { events: sql`${auditQuotas.events} + 1` },
      })
      .returning({ events: auditQuotas.events });
    return counted!.events;
  },
  async insertEvent(row) {
    await db.insert(auditEvents).values(row);
  },
  async countEvent(row) {
    // A concurrent insert of the same counter waits for this one to commit, then adds to it.
    await db
      .insert(auditEvents)
      .values(row)
      .onConflictDoUpdate({
        target: auditEvents.counterKey,
        set: { count: sql`${auditEvents.count} + 1`, lastAt: sql`excluded.at` },
      });
  },
});

/** `countInWindow` of the SQLite store (src/audit/sqlite-store.ts), on PostgreSQL. */
export const countInWindow = (
  db: PgDb | PgTx,
  key: string,
  windowEndsAt: number,
): Promise<number> => postgresAuditRowTables(db).countQuota(key, windowEndsAt) as Promise<number>;

/** Appends one event, or counts it (`src/audit/operations.ts`), in `db`'s transaction. */
export const recordAuditLater = (
  db: PgDb | PgTx,
  context: AuditContext,
  entry: AuditEntry,
  limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
): Promise<void> => runLater(recordAuditSteps(postgresAuditRowTables(db), context, entry, limits));

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
      if (holdsNul(userId)) return empty;
      return pageOf(securityLogRead(auditEvents, userId, paging));
    },
    async searchAudit(query) {
      if (holdsNul(query.actor, query.subject)) return empty;
      return pageOf(searchRead(auditEvents, query));
    },
    record: (context, entry) => recordAuditLater(db, context, entry),
    async pruneAuditQuotas(now) {
      const gone = await db
        .delete(auditQuotas)
        .where(lte(auditQuotas.windowEndsAt, new Date(now)))
        .returning({ key: auditQuotas.key });
      return gone.length;
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
