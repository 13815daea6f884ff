import { asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/sqlite/client';
import { mailOutbox } from '@/db/sqlite/schema';
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

/** The outbox on `bun:sqlite`: a claim is one transaction (SQLite has one writer). */
export const sqliteMailOutbox = (db: Db): MailOutboxStore => ({
  enqueue: (mail, now) =>
    db
      .insert(mailOutbox)
      .values(queuedMailOf(mail, now.getTime()))
      .returning({ id: mailOutbox.id })
      .get()!.id,
  claimDue: (now, claimUntil, limit) =>
    db.transaction((tx) => {
      const ids = tx
        .select({ id: mailOutbox.id })
        .from(mailOutbox)
        .where(dueWhere(mailOutbox, now))
        .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
        .limit(limit)
        .all()
        .map((row) => row.id);
      if (ids.length === 0) return [];
      return tx
        .update(mailOutbox)
        .set({ claimedUntil: claimUntil, attempts: sql`${mailOutbox.attempts} + 1` })
        .where(inArray(mailOutbox.id, ids))
        .returning(claimedColumns(mailOutbox))
        .all()
        .sort((a, b) => a.id - b.id);
    }),
  markSent(id, response, now) {
    db.update(mailOutbox).set(sentChange(response, now)).where(eq(mailOutbox.id, id)).run();
  },
  markFailed(id, response, now, retryAt) {
    db.update(mailOutbox)
      .set(failedChange(response, now, retryAt))
      .where(eq(mailOutbox.id, id))
      .run();
  },
  pruneFinished: (before) =>
    db
      .delete(mailOutbox)
      .where(finishedWhere(mailOutbox, before))
      .returning({ id: mailOutbox.id })
      .all().length,
  counts: () =>
    outboxCountsOf(
      db
        .select({ status: mailOutbox.status, n: count() })
        .from(mailOutbox)
        .where(inArray(mailOutbox.status, ['pending', 'failed']))
        .groupBy(mailOutbox.status)
        .all(),
    ),
  oldestPendingAt: () =>
    db
      .select(oldestPendingColumns(mailOutbox))
      .from(mailOutbox)
      .where(pendingWhere(mailOutbox))
      .get()?.at ?? null,
  recent: (limit) =>
    db
      .select(entryColumns(mailOutbox))
      .from(mailOutbox)
      .orderBy(desc(mailOutbox.id))
      .limit(limit)
      .all(),
  find: (id) => db.select().from(mailOutbox).where(eq(mailOutbox.id, id)).get(),
});
