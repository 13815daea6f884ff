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
import { readUnits } from '@/listings/units/representation';

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
const propertyChange = (type: EventType, row: PropertyRecord): NewEvent => ({
  type,
  resource: { kind: 'property', id: row.id },
  ownerId: row.owner_id,
  data: toProperty(row),
});

/** A property changed (`propertyChange`). */
export function propertyEvent(db: Db, type: EventType, id: string, now: number): void {
  appendEvent(db, propertyChange(type, propertyRow(db, id)), now);
}

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

/**
 * An owner change: the previous owner is told the property left its view
 * (`data: {id}`, its own event), then the new owner gets the property.
 */
export function ownerChangeEvents(db: Db, id: string, previousOwner: string, now: number): void {
  if (propertyRow(db, id).owner_id !== previousOwner) {
    appendEvent(
      db,
      {
        type: 'property.owner_changed',
        resource: { kind: 'property', id },
        ownerId: previousOwner,
        data: { id },
      },
      now,
    );
  }
  propertyEvent(db, 'property.owner_changed', id, now);
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

/** Units written (created, changed, deleted, unpublished by an archive): one event each. */
export function unitEvents(
  db: Db,
  type: EventType,
  ownerId: string,
  unitIds: readonly string[],
  now: number,
): void {
  for (const unit of readUnits(db, unitIds)) {
    appendEvent(db, { type, resource: { kind: 'unit', id: unit.id }, ownerId, data: unit }, now);
  }
}
