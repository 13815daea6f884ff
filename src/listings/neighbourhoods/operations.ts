import type { NewEvent } from '@/events/store';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { type Steps, step } from '@/kernel/steps';
import type { NeighbourhoodBody } from '@/listings/neighbourhoods/schemas';

/** The queries of a catalogue write, inside one transaction of a store. */
export interface NeighbourhoodTables {
  /**
   * The entry's city, or null; held until the transaction ends so a
   * property assigned to it meanwhile waits (SQLite: the single writer).
   */
  cityOf(id: string): MaybePromise<string | null>;
  /** Whether any property is in the neighbourhood. */
  inUse(id: string): MaybePromise<boolean>;
  upsert(id: string, body: NeighbourhoodBody, now: number): MaybePromise<void>;
  appendEvents(batch: readonly { event: NewEvent; now: number }[]): MaybePromise<void>;
}

/**
 * PUT /neighbourhoods/{id}: creates or replaces a catalogue entry. Moving an
 * entry that properties use to another city would leave them in a
 * neighbourhood of another city, so that is a 409.
 */
export function* putNeighbourhood(
  t: NeighbourhoodTables,
  id: string,
  body: NeighbourhoodBody,
  now: number,
): Steps<void> {
  const current = yield* step(t.cityOf(id));
  if (current !== null && current !== body.cityId) {
    if (yield* step(t.inUse(id))) throw fail('neighbourhood.in_use');
  }
  yield* step(t.upsert(id, body, now));
  const event: NewEvent = {
    type: 'neighbourhood.updated',
    resource: { kind: 'neighbourhood', id },
    ownerId: null,
    data: { id, cityId: body.cityId, name: body.name },
  };
  yield* step(t.appendEvents([{ event, now }]));
}
