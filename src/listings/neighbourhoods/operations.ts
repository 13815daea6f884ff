import type { NewEvent } from '@/events/store';
import { fail } from '@/kernel/errors';
import { etagOfJson } from '@/kernel/etag';
import { ensureMatches } from '@/kernel/preconditions';
import { type Steps, step } from '@/kernel/steps';
import type { Neighbourhood, NeighbourhoodBody } from '@/listings/neighbourhoods/schemas';
import type { NeighbourhoodTables } from '@/listings/neighbourhoods/tables';

/** The strong ETag of an entry: of its JSON as GET /listings/neighbourhoods lists it. */
export const neighbourhoodETag = (entry: Neighbourhood): string =>
  etagOfJson({ id: entry.id, cityId: entry.cityId, name: entry.name });

/**
 * PUT /neighbourhoods/{id}: creates or replaces a catalogue entry. Moving an
 * entry that properties use to another city would leave them in a
 * neighbourhood of another city, so that is a 409. With `ifMatch`, 412 unless
 * it names the entry's ETag (`*`: any existing entry), before the 409.
 */
export function* putNeighbourhood(
  t: NeighbourhoodTables,
  id: string,
  body: NeighbourhoodBody,
  now: number,
  ifMatch?: string,
): Steps<void> {
  const stored = yield* step(t.entry(id));
  if (ifMatch !== undefined)
    ensureMatches(ifMatch, stored ? neighbourhoodETag({ id, ...stored }) : undefined);
  const current = stored?.cityId ?? null;
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
