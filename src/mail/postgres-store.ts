import type { SQL } from 'bun';
import { asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import { mailOutbox } from '@/db/pg/schema';
import { type MailOutboxStore, queuedMailOf } from './store';
import {
  claimedColumns,
  dueWhere,
  entryColumns,
  failedChange,
  finishedWhere,
  oldestPendingColumns,
  outboxCountsOf,
  pendingWhere,
  sentChange,
} from './store-sql';

/**
 * The outbox on PostgreSQL. A claim is one UPDATE over the due rows it
 * locks, skipping rows another instance's claim holds locked, so two
 * instances never send one message. The caller owns `client`.
 */
export function postgresMailOutbox(client: SQL): MailOutboxStore {
  const db = pgDatabase(client);
  return {
    async enqueue(mail, now) {
      const [row] = await db
        .insert(mailOutbox)
        .values(queuedMailOf(mail, now.getTime()))
        .returning({ id: mailOutbox.id });
      return row!.id;
    },
    async claimDue(now, claimUntil, limit) {
      const due = db
        .select({ id: mailOutbox.id })
        .from(mailOutbox)
        .where(dueWhere(mailOutbox, now))
        .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      const claimed = await db
        .update(mailOutbox)
        .set({ claimedUntil: claimUntil, attempts: sql`${mailOutbox.attempts} + 1` })
        .where(inArray(mailOutbox.id, due))
        .returning(claimedColumns(mailOutbox));
      return claimed.sort((a, b) => a.id - b.id);
    },
    async markSent(id, response, now) {
      await db.update(mailOutbox).set(sentChange(response, now)).where(eq(mailOutbox.id, id));
    },
    async markFailed(id, response, now, retryAt) {
      await db
        .update(mailOutbox)
        .set(failedChange(response, now, retryAt))
        .where(eq(mailOutbox.id, id));
    },
    async pruneFinished(before) {
      const deleted = await db
        .delete(mailOutbox)
        .where(finishedWhere(mailOutbox, before))
        .returning({ id: mailOutbox.id });
      return deleted.length;
    },
    async counts() {
      return outboxCountsOf(
        await db
          .select({ status: mailOutbox.status, n: count() })
          .from(mailOutbox)
          .where(inArray(mailOutbox.status, ['pending', 'failed']))
          .groupBy(mailOutbox.status),
      );
    },
    async oldestPendingAt() {
      const [row] = await db
        .select(oldestPendingColumns(mailOutbox))
        .from(mailOutbox)
        .where(pendingWhere(mailOutbox));
      return row?.at ?? null;
    },
    // async: a drizzle query is a thenable, not a Promise, and callers tell them apart.
    recent: async (limit) =>
      db
        .select(entryColumns(mailOutbox))
        .from(mailOutbox)
        .orderBy(desc(mailOutbox.id))
        .limit(limit),
    async find(id) {
      const [row] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
      return row;
    },
  };
}
