import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import { fail } from '@/kernel/errors';
import { cursorOf, idOfCursor } from './cursor';
import type { Event, EventPage, EventQuery, EventType, ResourceKind } from './schemas';
import { nextAnnouncement, waitsReleased } from './signal';

export const DEFAULT_EVENTS_PER_PAGE = 100;

interface EventRecord {
  id: number;
  type: EventType;
  occurred_at: number;
  resource_kind: ResourceKind;
  resource_id: string;
  owner_id: string | null;
  data: string;
}

const toEvent = (row: EventRecord): Event => ({
  id: cursorOf(row.id),
  type: row.type,
  occurredAt: new Date(row.occurred_at).toISOString(),
  resource: { kind: row.resource_kind, id: row.resource_id },
  ownerId: row.owner_id,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/**
 * The highest id pruning may have removed: events are pruned oldest first,
 * so everything up to the oldest kept id (or, with none kept, up to the last
 * id ever assigned) is gone.
 */
function prunedThrough(db: Db): number {
  const oldest = db.$client.query('SELECT min(id) AS id FROM events').get() as {
    id: number | null;
  };
  if (oldest.id !== null) return oldest.id - 1;
  const last = db.$client.query("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get() as {
    seq: number;
  } | null;
  return last?.seq ?? 0;
}

/**
 * One page of the feed after `query.after`, in id order: a customer's own
 * properties only, an employee everything. Ids commit in order (see
 * `appendEvent`), so what this snapshot holds is a prefix of the ids and a
 * later read from the last cursor misses nothing. A cursor whose successors
 * were pruned is a 410.
 */
export function readEvents(db: Db, caller: Caller, query: EventQuery): EventPage {
  const after = query.after === undefined ? 0 : idOfCursor(query.after);
  const limit = query.limit ?? DEFAULT_EVENTS_PER_PAGE;
  const where = ['id > ?'];
  const params: (string | number)[] = [after];
  if (caller.aud === 'customer') {
    where.push('owner_id = ?');
    params.push(caller.sub);
  }
  if (query.types) {
    where.push('type IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(query.types));
  }
  const rows = db.$client
    .query(
      `SELECT id, type, occurred_at, resource_kind, resource_id, owner_id, data FROM events
       WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`,
    )
    .all(...params, limit + 1) as EventRecord[];
  // Checked after the read: a prune between the two would otherwise go unseen.
  // Without `after` the feed starts at the oldest event kept.
  if (query.after !== undefined && after < prunedThrough(db)) throw fail('events.cursor_expired');
  const page = rows.slice(0, limit).map(toEvent);
  return {
    data: page,
    next_cursor: page.at(-1)?.id ?? query.after ?? null,
    has_more: rows.length > limit,
  };
}

/**
 * `readEvents`, holding on for up to `query.wait` seconds while the page is
 * empty: woken by every event this process commits, and looking again every
 * second for those of other processes. `abort` (the client went away) and
 * shutdown (`releaseWaits`) answer at once.
 */
export async function waitForEvents(
  db: Db,
  caller: Caller,
  query: EventQuery,
  abort?: AbortSignal,
): Promise<EventPage> {
  const deadline = performance.now() + (query.wait ?? 0) * 1000;
  for (;;) {
    const page = readEvents(db, caller, query);
    const left = deadline - performance.now();
    if (page.data.length > 0 || left <= 0 || abort?.aborted || waitsReleased()) return page;
    await nextAnnouncement(Math.min(left, 1000), abort);
  }
}

/** Removes events older than `cutoff` (ms), oldest first, so the kept ids stay a suffix. */
export function pruneEvents(db: Db, cutoff: number): number {
  return db.$client
    .query(`DELETE FROM events WHERE id <= (SELECT max(id) FROM events WHERE occurred_at < ?)`)
    .run(cutoff).changes;
}
