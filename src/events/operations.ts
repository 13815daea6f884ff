import type { Caller } from '@/auth/tokens';
import type { FeedTables } from '@/events/tables';
import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { cursorOf, idOfCursor } from './cursor';
import {
  EVENT_TYPES,
  type Event,
  type EventPage,
  type EventQuery,
  type EventType,
  type ResourceKind,
} from './schemas';
import type { EventScope, NewEvent, NewEventRow, StoredEvent } from './store';

export const DEFAULT_EVENTS_PER_PAGE = 100;
/**
 * The most bytes of JSON one feed page answers (a single event larger than
 * this is answered alone). Events are a few KiB at most
 * (docs/events-and-webhooks.md, "Event sizes"), so a page of them is cut
 * only at 150 and more; the cap bounds what one read holds and sends
 * whatever `limit` asks, and whatever a future event type carries.
 */
export const MAX_EVENT_PAGE_BYTES = 1024 * 1024;
/** `{"data":[`, `],"next_cursor":` with a cursor or null, `,"has_more":false}`: with room to spare. */
const PAGE_ENVELOPE_BYTES = 128;

export const toEvent = (row: StoredEvent): Event => ({
  id: cursorOf(row.id),
  type: row.type as EventType,
  occurredAt: new Date(row.occurredAt).toISOString(),
  resource: { kind: row.resourceKind as ResourceKind, id: row.resourceId },
  ownerId: row.ownerId,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/**
 * Which events a page of `query` reads for `caller`, one more than the page
 * holds (to tell `has_more`): a customer's own, an employee's everyone's.
 * An owner's events are indexed by owner and type only
 * (src/db/schema/events.ts), so an owner's read without a filter merges
 * every type's.
 */
export function scopeOf(caller: Caller, query: EventQuery): EventScope {
  const owner = caller.aud === 'customer' ? caller.sub : null;
  return {
    after: query.after === undefined ? 0 : idOfCursor(query.after),
    owner,
    types: query.types ?? (owner === null ? undefined : EVENT_TYPES),
    limit: (query.limit ?? DEFAULT_EVENTS_PER_PAGE) + 1,
  };
}

/**
 * One page of the feed after `query.after`, in id order: a customer's own
 * properties only, an employee everything. Ids commit in order (see
 * `appendEvent`, `appendEventRows`), so what a read sees is a prefix of the
 * ids and a later read from the last cursor misses nothing. A cursor whose
 * successors were pruned is a 410. A page ends at `limit` events or before
 * `MAX_EVENT_PAGE_BYTES`, whichever comes first, and says `has_more` either way.
 */
export function* feedPage(tables: FeedTables, caller: Caller, query: EventQuery): Steps<EventPage> {
  const scope = scopeOf(caller, query);
  const { after } = scope;
  const limit = scope.limit - 1;
  const rows = yield* step(tables.eventsAfter(scope));
  // Checked after the read: a prune between the two would otherwise go unseen.
  // Without `after` the feed starts at the oldest event kept.
  if (query.after !== undefined && after < (yield* step(tables.prunedThrough()))) {
    throw fail('events.cursor_expired');
  }
  const page = pageWithin(rows.slice(0, limit), MAX_EVENT_PAGE_BYTES - PAGE_ENVELOPE_BYTES);
  return {
    data: page,
    next_cursor: page.at(-1)?.id ?? query.after ?? null,
    has_more: rows.length > page.length,
  };
}

/**
 * The first of `rows` whose JSON, with the commas between them, fits in
 * `budget` bytes; always the first row, however large. An event's JSON is
 * its envelope around its stored `data`, which is already JSON: measured
 * without serialising `data` again.
 */
function pageWithin(rows: readonly StoredEvent[], budget: number): Event[] {
  const page: Event[] = [];
  let bytes = 0;
  for (const row of rows) {
    bytes += eventBytes(row) + (page.length > 0 ? 1 : 0);
    if (bytes > budget && page.length > 0) break;
    page.push(toEvent(row));
  }
  return page;
}

/** Bytes of the event of `row` as JSON: its envelope with `data` as `0`, and `data` in its place. */
const eventBytes = (row: StoredEvent) =>
  Buffer.byteLength(JSON.stringify(toEvent({ ...row, data: '0' }))) -
  1 +
  Buffer.byteLength(row.data);

/** The row of `event`, happening at `now` (ms): shared by every store's append. */
export const eventRowOf = (event: NewEvent, now: number): NewEventRow => ({
  type: event.type,
  occurredAt: new Date(now),
  resourceKind: event.resource.kind,
  resourceId: event.resource.id,
  ownerId: event.ownerId,
  data: JSON.stringify(event.data),
});
