import { recordAudit } from '@/audit/sqlite-store';
import type { Db } from '@/db/sqlite/client';
import type { PropertyTables } from '@/listings/properties/tables';
import { exec, many, one } from '../sqlite-statements';
import { sqliteUnitTables } from '../units/sqlite-tables';

const SAVE_DATA = `INSERT INTO property_additional_data (property_id, data, created_at, updated_at)
  VALUES (?, ?, ?, ?)
  ON CONFLICT (property_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`;

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The property-write queries on SQLite, inside the write's transaction. */
export const sqlitePropertyTables = (db: Db): PropertyTables => ({
  ...sqliteUnitTables(db),
  updateProperty(id, changes) {
    const entries = Object.entries(changes);
    exec(
      db,
      `UPDATE properties SET ${entries.map(([key]) => `${snakeCase(key)} = ?`).join(', ')} WHERE id = ?`,
      ...entries.map(([, value]) => (typeof value === 'boolean' ? (value ? 1 : 0) : value)),
      id,
    );
  },
  unpublishUnits: (propertyId, now) =>
    many<{ id: string }>(
      db,
      'UPDATE units SET published = 0, updated_at = ? WHERE property_id = ? AND published = 1 RETURNING id',
      now,
      propertyId,
    ).map((unit) => unit.id),
  neighbourhoodCity: (id) =>
    one<{ city_id: string }>(db, 'SELECT city_id FROM neighbourhoods WHERE id = ?', id)?.city_id ??
    null,
  recordAudit: (context, entry) => recordAudit(db, context, entry),
  storedData: (id) =>
    one<{ data: string }>(db, 'SELECT data FROM property_additional_data WHERE property_id = ?', id)
      ?.data ?? null,
  saveData(id, json, now) {
    exec(db, SAVE_DATA, id, json, now, now);
  },
  counter: (id) =>
    one<{ unitsCounter: number; ownerId: string }>(
      db,
      'SELECT units_counter AS unitsCounter, owner_id AS ownerId FROM properties WHERE id = ?',
      id,
    ),
  setCounter: (id, counter, now) =>
    exec(
      db,
      'UPDATE properties SET units_counter = ?, updated_at = ? WHERE id = ?',
      counter,
      now,
      id,
    ) > 0,
});
