import type { NewEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { NeighbourhoodBody } from '@/listings/neighbourhoods/schemas';

/** The queries of a catalogue write, inside one transaction of a store. */
export interface NeighbourhoodTables {
  /**
   * The entry's city and name, or null; held until the transaction ends so a
   * property assigned to it meanwhile waits (SQLite: the single writer).
   */
  entry(id: string): MaybePromise<NeighbourhoodBody | null>;
  /** Whether any property is in the neighbourhood. */
  inUse(id: string): MaybePromise<boolean>;
  upsert(id: string, body: NeighbourhoodBody, now: number): MaybePromise<void>;
  appendEvents(batch: readonly { event: NewEvent; now: number }[]): MaybePromise<void>;
}
