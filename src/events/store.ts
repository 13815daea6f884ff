import type { Caller } from '@/auth/tokens';
import type { EventRow } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { EventPage, EventQuery, EventType, ResourceKind } from './schemas';
import type { Appended } from './signal';

export interface NewEvent {
  type: EventType;
  resource: { kind: ResourceKind; id: string };
  /** The owner of the property concerned; null when no customer may see the event. */
  ownerId: string | null;
  /**
   * The resource as its GET answers it after the change, `{id}` once removed,
   * or, for a resource that can be large, what names it (`UnitEventData`, …):
   * a few KiB at most, since every delivery and feed page carries it.
   */
  data: object;
}

/** The row of one event as every store inserts it (the id is assigned by the insert). */
export type NewEventRow = Omit<EventRow, 'id'>;

/** An event as a store reads it back (`occurredAt` in ms on SQLite, a `Date` on PostgreSQL). */
export interface StoredEvent {
  id: number;
  type: string;
  occurredAt: number | Date;
  resourceKind: string;
  resourceId: string;
  ownerId: string | null;
  data: string;
}

/** Which events a page holds: after `after`, of `owner` (null: everyone's), of `types`. */
export interface EventScope {
  after: number;
  owner: string | null;
  types: readonly EventType[] | undefined;
  limit: number;
}

/** Reads one page of the feed; `EventStore.readEvents`. */
export type ReadEvents = (caller: Caller, query: EventQuery) => MaybePromise<EventPage>;

/**
 * Where the change feed's events live. Writers of other domains append
 * their events inside their own transactions (`appendEvents` of
 * `sqlite-outbox.ts` and `postgres-outbox.ts`, announced once committed by
 * `announcedAfter` of each outbox); this store reads and prunes them. The
 * rules of a read (cursor, scope, page, 410) are `feedPage`, shared by both
 * stores. `sqliteEventStore` answers at once, `postgresEventStore` with
 * promises.
 */
export interface EventStore {
  readEvents: ReadEvents;
  /** Appends events in one transaction of their own, in the order given (tools and tests). */
  appendEvents(batch: readonly { event: NewEvent; now: number }[]): MaybePromise<void>;
  /** Removes events older than `cutoff` (ms), oldest first, so the kept ids stay a suffix. */
  pruneEvents(cutoff: number): MaybePromise<number>;
  /** The highest id kept (0 with none): the long polls' look for other processes' writes. */
  lastEventId(): MaybePromise<number>;
  /** Whom the events with ids in (`after`, `through`] concern: each owner and type once. */
  appendedBetween(after: number, through: number): MaybePromise<Appended[]>;
}
