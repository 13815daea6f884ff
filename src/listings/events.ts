import type { EventType } from '@/events/schemas';
import type { NewEvent } from '@/events/store';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';

/**
 * The events of listings writes (docs/events-and-webhooks.md). Each is called
 * inside the write's transaction, after the write, so `data` is what a GET
 * answers once the change has committed.
 */

/** The event of a property change: `data` is the property as GET /properties/{id} answers it. */
export const propertyChange = (type: EventType, row: PropertyRecord): NewEvent => ({
  type,
  resource: { kind: 'property', id: row.id },
  ownerId: row.owner_id,
  data: toProperty(row),
});

/**
 * The `property.created` events of properties created by one write, in the
 * order given (so event ids follow it), each `data` as GET answers it from
 * `rows` (the created rows read back in the write's transaction).
 */
export function createdEventsOf(
  created: readonly { id: string; now: number }[],
  rows: readonly PropertyRecord[],
): { event: NewEvent; now: number }[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return created.map(({ id, now }) => {
    const row = byId.get(id);
    if (!row) throw new Error(`property ${id} vanished inside its own write`);
    return { event: propertyChange('property.created', row), now };
  });
}
