import type { Caller } from '@/auth/tokens';
import type { AdditionalDataEventData } from '@/events/schemas';
import { fail, fieldError, isDomainError } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { ensureVisible } from '@/listings/access';
import type { Data } from '@/listings/additional-data/schemas';
import type { PropertyTables } from '@/listings/properties/tables';

/**
 * Additional data created or replaced, with an event to the property's owner
 * naming the property, never the data (up to 64 KiB): the data is stored
 * once, and a consumer reads it with its GET.
 */
function* save(t: PropertyTables, id: string, data: Data, ownerId: string, now: number) {
  yield* step(t.saveData(id, JSON.stringify(data), now));
  const event = {
    type: 'additional_data.updated' as const,
    resource: { kind: 'additional_data' as const, id },
    ownerId,
    data: { id } satisfies AdditionalDataEventData,
  };
  yield* step(t.appendEvents([{ event, now }]));
}

/**
 * POST /properties/additional-data: a missing (or, for a customer, another
 * owner's) property is 422 `recordNotFound`, existing data 422 `recordExists`.
 */
export const createAdditionalData = (id: string, data: Data, caller: Caller | null, now: number) =>
  function* (t: PropertyTables): Steps<void> {
    let ownerId: string;
    try {
      ownerId = ensureVisible(yield* step(t.property(id)), caller).owner_id;
    } catch (error) {
      if (!isDomainError(error, 'property.not_found')) throw error;
      throw fieldError(['id'], 'recordNotFound', 'No property with this id was found');
    }
    if ((yield* step(t.storedData(id))) !== null) {
      throw fieldError(['id'], 'recordExists', 'Additional data already exists for this property');
    }
    yield* save(t, id, data, ownerId, now);
  };

/** GET /properties/{id}/additional-data: 404 without a visible property or without data. */
export const readAdditionalData = (id: string, caller: Caller | null) =>
  function* (t: PropertyTables): Steps<Data> {
    ensureVisible(yield* step(t.property(id)), caller);
    const stored = yield* step(t.storedData(id));
    if (stored === null) throw fail('additional_data.not_found');
    return JSON.parse(stored) as Data;
  };

/** PUT /properties/{id}/additional-data: creates or replaces (404 for a missing property). */
export const putAdditionalData = (id: string, data: Data, caller: Caller | null, now: number) =>
  function* (t: PropertyTables): Steps<void> {
    const { owner_id } = ensureVisible(yield* step(t.property(id)), caller);
    yield* save(t, id, data, owner_id, now);
  };
