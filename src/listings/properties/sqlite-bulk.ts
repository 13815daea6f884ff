import type { Db } from '@/db/sqlite/client';
import { rowInserter } from '@/db/sqlite/insert-rows';
import { properties, unitFeatures, units } from '@/db/sqlite/schema';
import { appendEvents } from '@/events/sqlite-outbox';
import { createdEventsOf } from '@/listings/events';
import { many, writeTransaction } from '@/listings/sqlite-statements';
import { type BulkPropertyInput, NOT_INSERTED, type PlannedCreates, planCreates } from './bulk';
import type { PropertyRecord } from './representation';
import { PROPERTY_COLUMNS } from './sqlite-record';

export interface BulkInsertResult {
  properties: number;
  units: number;
  ids: string[];
}

const insertProperties = rowInserter(properties, NOT_INSERTED);
const insertUnits = rowInserter(units, ['deletedAt']);
const insertFeatures = rowInserter(unitFeatures, []);

/**
 * Tells the read caches of the units inserted next once per write, not once
 * per unit: while the latest `cache_changes` row is this marker, the
 * `cache_log_units_insert` trigger adds none. The marker itself tells the
 * caches that units changed (a `'unit'` row means only that: its key is not
 * read, src/db/read-cache-tags.ts), so one row after the insert, naming the
 * last property, ends the pause in the same transaction, however many
 * properties the write holds. No committed log ever ends with the marker, and
 * every other writer's units are still logged row by row.
 */
const PAUSE_UNIT_LOG = "INSERT INTO cache_changes (topic, key) VALUES ('unit', '')";
const END_UNIT_LOG_PAUSE = "INSERT INTO cache_changes (topic, key) VALUES ('unit', ?)";

/** Inserts planned rows on SQLite, with multi-row statements (`insertRows`). */
export function insertPlanned(db: Db, planned: PlannedCreates): void {
  const client = db.$client;
  insertProperties(client, planned.properties);
  if (planned.units.length > 0) {
    client.query(PAUSE_UNIT_LOG).run();
    insertUnits(client, planned.units);
    client.query(END_UNIT_LOG_PAUSE).run(planned.units.at(-1)!.propertyId);
  }
  insertFeatures(client, planned.features);
}

/**
 * Properties created by one write: their rows read back in one query and
 * their `property.created` events appended with multi-row INSERTs
 * (`createdEventsOf`).
 */
function propertiesCreatedEvents(db: Db, created: readonly { id: string; now: number }[]): void {
  const rows = many<PropertyRecord>(
    db,
    `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id IN (SELECT value FROM json_each(?))`,
    JSON.stringify(created.map(({ id }) => id)),
  );
  appendEvents(db, createdEventsOf(created, rows));
}

/**
 * Inserts many properties with their units in one transaction through
 * prepared statements (for seeding and imports), the rows of `planCreates`:
 * an unknown `cityId` or a unit count outside 1..30 throws and nothing is
 * written. Each property gets its `property.created` event, at its
 * `createdAt`, unless `events` is false (the benchmark seed).
 */
export function insertPropertiesBulk(
  db: Db,
  rows: readonly BulkPropertyInput[],
  options: { now?: number; events?: boolean } = {},
): BulkInsertResult {
  const planned = planCreates(rows, options.now ?? Date.now());
  return writeTransaction(db, () => {
    insertPlanned(db, planned);
    if (options.events !== false) propertiesCreatedEvents(db, planned.created);
    return { properties: planned.ids.length, units: planned.units.length, ids: planned.ids };
  });
}
