import type { Db } from '@/db/client';
import { runNow } from '@/kernel/steps';
import { feedPage } from './operations';
import { appendEvents } from './sqlite-outbox';
import type { EventStore, FeedTables, StoredEvent } from './store';

const feedTablesOf = (db: Db): FeedTables => ({
  eventsAfter({ after, owner, types, limit }) {
    const where = ['id > ?'];
    const params: (string | number)[] = [after];
    if (owner !== null) {
      where.push('owner_id = ?');
      params.push(owner);
    }
    if (types) {
      where.push('type IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(types));
    }
    return db.$client
      .query(
        `SELECT id, type, occurred_at AS occurredAt, resource_kind AS resourceKind,
           resource_id AS resourceId, owner_id AS ownerId, data FROM events
         WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`,
      )
      .all(...params, limit) as StoredEvent[];
  },
  prunedThrough() {
    const oldest = db.$client.query('SELECT min(id) AS id FROM events').get() as {
      id: number | null;
    };
    if (oldest.id !== null) return oldest.id - 1;
    const last = db.$client
      .query("SELECT seq FROM sqlite_sequence WHERE name = 'events'")
      .get() as { seq: number } | null;
    return last?.seq ?? 0;
  },
});

/**
 * The feed on `bun:sqlite`: every answer at once. SQLite admits one writer,
 * so ids commit in id order without anything more.
 */
export function sqliteEventStore(db: Db) {
  const tables = feedTablesOf(db);
  return {
    readEvents: (caller, query) => runNow(feedPage(tables, caller, query)),
    appendEvents: (batch) => appendEvents(db, batch),
    pruneEvents: (cutoff) =>
      db.$client
        .query('DELETE FROM events WHERE id <= (SELECT max(id) FROM events WHERE occurred_at < ?)')
        .run(cutoff).changes,
  } satisfies EventStore;
}
