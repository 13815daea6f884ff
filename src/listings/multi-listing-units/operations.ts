import type { Caller } from '@/auth/tokens';
import { fail } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { ensureVisible } from '@/listings/access';
import type { MultiListingUnit } from '@/listings/multi-listing-units/schemas';
import type { PropertyTables } from '@/listings/properties/tables';

/** GET /multi-listing-units/{id}: 404 for a property the caller may not see. */
export const getCounter = (id: string, caller: Caller | null) =>
  function* (t: PropertyTables): Steps<MultiListingUnit> {
    const row = yield* step(t.counter(id));
    const visible = ensureVisible(row && { owner_id: row.ownerId, ...row }, caller);
    return { id, unitsCounter: visible.unitsCounter };
  };

/** PUT /multi-listing-units/{id} (employees; the route refuses customers with 403). */
export const setCounter = (id: string, counter: number, now: number) =>
  function* (t: PropertyTables): Steps<void> {
    if (!(yield* step(t.setCounter(id, counter, now)))) throw fail('multi_listing_unit.not_found');
    const row = yield* step(t.counter(id));
    if (!row) return;
    const event = {
      type: 'multi_listing_counter.updated' as const,
      resource: { kind: 'multi_listing_counter' as const, id },
      ownerId: row.ownerId,
      data: { id, unitsCounter: row.unitsCounter },
    };
    yield* step(t.appendEvents([{ event, now }]));
  };
