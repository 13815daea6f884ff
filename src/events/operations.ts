import type { Caller } from '@/auth/tokens';
import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { cursorOf, idOfCursor } from './cursor';
import type { Event, EventPage, EventQuery, EventType, ResourceKind } from './schemas';
import type { FeedTables, NewEvent, NewEventRow, StoredEvent } from './store';

export const DEFAULT_EVENTS_PER_PAGE = 100;

export const toEvent = (row: StoredEvent): Event => ({
  id: cursorOf(row.id),
  type: row.type as EventType,
  occurredAt: new Date(row.occurredAt).toISOString(),
  resource: { kind: row.resourceKind as ResourceKind, id: row.resourceId },
  ownerId: row.ownerId,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/**
 * One page of the feed after `query.after`, in id order: a customer's own
 * properties only, an employee everything. Ids commit in order (see
 * `appendEvent`, `appendEventRows`), so what a read sees is a prefix of the
 * ids and a later read from the last cursor misses nothing. A cursor whose
 * successors were pruned is a 410.
 */
export function* feedPage(tables: FeedTables, caller: Caller, query: EventQuery): Steps<EventPage> {
  const after = query.after === undefined ? 0 : idOfCursor(query.after);
  const limit = query.limit ?? DEFAULT_EVENTS_PER_PAGE;
  const rows = yield* step(
    tables.eventsAfter({
      after,
      owner: caller.aud === 'customer' ? caller.sub : null,
      types: query.types,
      limit: limit + 1,
    }),
  );
  // Checked after the read: a prune between the two would otherwise go unseen.
  // Without `after` the feed starts at the oldest event kept.
  if (query.after !== undefined && after < (yield* step(tables.prunedThrough()))) {
    throw fail('events.cursor_expired');
  }
  const page = rows.slice(0, limit).map(toEvent);
  return {
    data: page,
    next_cursor: page.at(-1)?.id ?? query.after ?? null,
    has_more: rows.length > limit,
  };
}

/** The row of `event`, happening at `now` (ms): shared by every store's append. */
export const eventRowOf = (event: NewEvent, now: number): NewEventRow => ({
  type: event.type,
  occurredAt: new Date(now),
  resourceKind: event.resource.kind,
  resourceId: event.resource.id,
  ownerId: event.ownerId,
  data: JSON.stringify(event.data),
});
