import type { Db } from '@/db/client';
import { appendEvent, appendEvents, type NewEvent } from '@/events/outbox';
import type { EventType } from '@/events/schemas';
import {
  PROPERTY_BY_ID,
  PROPERTY_COLUMNS,
  type PropertyRecord,
  toProperty,
} from '@/listings/properties/representation';
import { many, one } from '@/listings/sql';

/**
 * The events of listings writes (docs/events-and-webhooks.md). Each is called
 * inside the write's transaction, after the write, so `data` is what a GET
 * answers once the change has committed.
 */

function propertyRow(db: Db, id: string): PropertyRecord {
  const row = one<PropertyRecord>(db, PROPERTY_BY_ID, id);
  if (!row) throw new Error(`property ${id} vanished inside its own write`);
  return row;
}

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

/**
 * Properties created by one write: their rows read back in one query and
 * their `property.created` events appended with multi-row INSERTs
 * (`createdEventsOf`).
 */
export function propertiesCreatedEvents(
  db: Db,
  created: readonly { id: string; now: number }[],
): void {
  const rows = many<PropertyRecord>(
    db,
    `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id IN (SELECT value FROM json_each(?))`,
    JSON.stringify(created.map(({ id }) => id)),
  );
  appendEvents(db, createdEventsOf(created, rows));
}

/** A multi-listing counter changed: `{id, unitsCounter}` as its GET answers. */
export function counterEvent(db: Db, id: string, now: number): void {
  const row = one<{ units_counter: number; owner_id: string }>(
    db,
    'SELECT units_counter, owner_id FROM properties WHERE id = ?',
    id,
  );
  if (!row) return;
  appendEvent(
    db,
    {
      type: 'multi_listing_counter.updated',
      resource: { kind: 'multi_listing_counter', id },
      ownerId: row.owner_id,
      data: { id, unitsCounter: row.units_counter },
    },
    now,
  );
}

/** Additional data created or replaced: `{id, data}` as its GET answers. */
export function additionalDataEvent(db: Db, id: string, data: object, now: number): void {
  appendEvent(
    db,
    {
      type: 'additional_data.updated',
      resource: { kind: 'additional_data', id },
      ownerId: propertyRow(db, id).owner_id,
      data: { id, data },
    },
    now,
  );
}
