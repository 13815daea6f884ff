import type { Db } from '@/db/sqlite/client';
import type { FeedTables } from '@/events/tables';
import { runNow } from '@/kernel/steps';
import { feedPage } from './operations';
import type { Appended } from './signal';
import { announcedAfter, appendEvents } from './sqlite-outbox';
import type { EventScope, EventStore, StoredEvent } from './store';

const COLUMNS = `id, type, occurred_at AS occurredAt, resource_kind AS resourceKind,
  resource_id AS resourceId, owner_id AS ownerId, data`;

/**
 * The statement of one page of `scope`: ?1 the cursor, ?2 the limit. With
 * `types`, each type's ids come in id order from `events_owner_type` (or
 * `events_type` for everyone's) and SQLite merges them (MERGE UNION ALL),
 * stopping at the limit: the read costs the page and one probe a type,
 * whatever the number of events of other types it skips. Exported for the
 * plan test, which holds SQLite to that plan on a database never ANALYZEd.
 */
export function pageQueryOf({ after, owner, types, limit }: EventScope) {
  const params: (string | number)[] = [after, limit];
  let ofOwner = '';
  if (owner !== null) {
    params.push(owner);
    ofOwner = `owner_id = ?${params.length} AND `;
  }
  if (!types) {
    const sql = `SELECT ${COLUMNS} FROM events WHERE ${ofOwner}id > ?1 ORDER BY id LIMIT ?2`;
    return { sql, params };
  }
  const arms = [...new Set(types)].map((type) => {
    params.push(type);
    return `SELECT id FROM events WHERE ${ofOwner}type = ?${params.length} AND id > ?1`;
  });
  const ids = `${arms.join(' UNION ALL ')} ORDER BY id LIMIT ?2`;
  return { sql: `SELECT ${COLUMNS} FROM events WHERE id IN (${ids}) ORDER BY id`, params };
}

const sqliteFeedTables = (db: Db): FeedTables => ({
  eventsAfter(scope) {
    const { sql, params } = pageQueryOf(scope);
    return db.$client.query(sql).all(...params) as StoredEvent[];
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
  const tables = sqliteFeedTables(db);
  return {
    readEvents: (caller, query) => runNow(feedPage(tables, caller, query)),
    appendEvents: (batch) => announcedAfter(() => appendEvents(db, batch)),
    pruneEvents: (cutoff) =>
      db.$client
        .query('DELETE FROM events WHERE id <= (SELECT max(id) FROM events WHERE occurred_at < ?)')
        .run(cutoff).changes,
    lastEventId: () =>
      (db.$client.query('SELECT coalesce(max(id), 0) AS id FROM events').get() as { id: number })
        .id,
    appendedBetween: (after, through) =>
      db.$client
        .query('SELECT DISTINCT owner_id AS ownerId, type FROM events WHERE id > ? AND id <= ?')
        .all(after, through) as Appended[],
  } satisfies EventStore;
}
