import type { SQL } from 'bun';
import { and, asc, eq, gt, inArray, lt, max, min, sql } from 'drizzle-orm';
import { changedRows, pgDatabase } from '@/db/pg/client';
import { events } from '@/db/pg/schema';
import { runLater } from '@/kernel/steps';
import { eventRowOf, feedPage } from './operations';
import { announcedAfter, appendEventRows } from './postgres-outbox';
import type { EventStore, FeedTables } from './store';

/**
 * The feed on PostgreSQL: the same pages, cursors and errors as
 * `sqliteEventStore`, every answer a promise. Each query of a read runs on
 * its own (READ COMMITTED): the prune check after the page sees a prune
 * that committed between them. The caller owns `client` and closes it.
 */
export function postgresEventStore(client: SQL): EventStore {
  const db = pgDatabase(client);
  const tables: FeedTables = {
    // async: a drizzle query is a thenable, not a Promise, and callers tell them apart.
    async eventsAfter({ after, owner, types, limit }) {
      // PostgreSQL text cannot hold NUL: no stored owner has one, and binding it would fail.
      if (owner?.includes('\u0000')) return [];
      return db
        .select()
        .from(events)
        .where(
          and(
            gt(events.id, after),
            owner === null ? undefined : eq(events.ownerId, owner),
            types ? inArray(events.type, [...types]) : undefined,
          ),
        )
        .orderBy(asc(events.id))
        .limit(limit);
    },
    async prunedThrough() {
      const [oldest] = await db.select({ id: min(events.id) }).from(events);
      if (oldest?.id != null) return oldest.id - 1;
      // The identity's last value: every id up to it was assigned, and is gone.
      const [last] = await db.execute<{ id: string | null }>(
        sql`SELECT pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass) AS id`,
      );
      return Number(last?.id ?? 0);
    },
  };
  return {
    readEvents: (caller, query) => runLater(feedPage(tables, caller, query)),
    async appendEvents(batch) {
      await announcedAfter(
        db.transaction((tx) =>
          appendEventRows(
            tx,
            batch.map(({ event, now }) => eventRowOf(event, now)),
          ),
        ),
      );
    },
    async pruneEvents(cutoff) {
      const newest = db
        .select({ id: max(events.id) })
        .from(events)
        .where(lt(events.occurredAt, new Date(cutoff)));
      const removed = await db.delete(events).where(sql`${events.id} <= (${newest})`);
      return changedRows(removed);
    },
  };
}
