import type { MaybePromise } from '@/kernel/maybe-promise';
import type { ReadEvents } from './operations';
import type { NewEvent } from './sqlite-outbox';

/**
 * Where the change feed's events live. Writers of other domains append
 * their events inside their own transactions (`appendEvent` on SQLite,
 * `appendEventRows` on PostgreSQL); this store reads and prunes them. The
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
}
