import type { EventScope, StoredEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';

/** The queries of one feed read, as each store answers them. */
export interface FeedTables {
  /** Events of `scope`, in id order, at most `scope.limit`. */
  eventsAfter(scope: EventScope): MaybePromise<StoredEvent[]>;
  /**
   * The highest id pruning may have removed: events are pruned oldest
   * first, so everything up to the oldest kept id (or, with none kept, up to
   * the last id ever assigned) is gone.
   */
  prunedThrough(): MaybePromise<number>;
}
