import type { Db } from '@/db/sqlite/client';
import { appendEvents } from '@/events/sqlite-outbox';
import type { PropertyRecord } from '@/listings/properties/representation';
import { PROPERTY_BY_ID } from '@/listings/properties/sqlite-record';
import { countUpTo, exec, many, one } from '@/listings/sqlite-statements';
import type { Unit, UnitFeature } from '@/listings/units/schemas';
import type { UnitTables } from '@/listings/units/tables';
import { toUnit, type UnitRecord } from './representation';

const UNIT_COLUMNS = 'u.id, u.property_id, u.rentable, u.published, u.deleted_at';

function featuresOf(db: Db, unitIds: string[]): Map<string, UnitFeature[]> {
  const rows = many<UnitFeature & { unit_id: string }>(
    db,
    `SELECT unit_id, applicability, category, name, value FROM unit_features
     WHERE unit_id IN (SELECT value FROM json_each(?)) ORDER BY unit_id, position`,
    JSON.stringify(unitIds),
  );
  const byUnit = new Map<string, UnitFeature[]>();
  for (const { unit_id, ...feature } of rows) {
    byUnit.set(unit_id, [...(byUnit.get(unit_id) ?? []), feature]);
  }
  return byUnit;
}

function toUnits(db: Db, rows: UnitRecord[]): Unit[] {
  const features = featuresOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toUnit(row, features.get(row.id) ?? []));
}

/** Units by id, as GET answers them, in id order. */
const readUnits = (db: Db, ids: readonly string[]): Unit[] =>
  toUnits(
    db,
    many<UnitRecord>(
      db,
      `SELECT ${UNIT_COLUMNS} FROM units u WHERE u.id IN (SELECT value FROM json_each(?)) ORDER BY u.id`,
      JSON.stringify(ids),
    ),
  );

/**
 * Rewrites the unit counters and `published` of a property from its units
 * (counters count the non-deleted units; published = not
 * archived and at least one published unit). Called in every unit write's
 * transaction.
 */
function refreshCounters(db: Db, propertyId: string, now: number): void {
  exec(
    db,
    `UPDATE properties SET total_units = c.total, rentable_units = c.rentable,
       published_units = c.published, published = (archived = 0 AND c.published > 0), updated_at = ?
     FROM (SELECT count(*) AS total, coalesce(sum(rentable), 0) AS rentable,
             coalesce(sum(published), 0) AS published
           FROM units WHERE property_id = ? AND deleted_at IS NULL) AS c
     WHERE id = ?`,
    now,
    propertyId,
    propertyId,
  );
}

/** The unit queries on SQLite; writes run inside the caller's write transaction. */
export const sqliteUnitTables = (db: Db): UnitTables => ({
  // SQLite admits one writer at a time: the write transaction already excludes other unit writes.
  property: (id) => one<PropertyRecord>(db, PROPERTY_BY_ID, id),
  unit: (propertyId, unitId) =>
    one<UnitRecord>(
      db,
      `SELECT ${UNIT_COLUMNS} FROM units u WHERE u.id = ? AND u.property_id = ?`,
      unitId,
      propertyId,
    ),
  liveUnits: (propertyId) =>
    one<{ n: number }>(
      db,
      'SELECT count(*) AS n FROM units WHERE property_id = ? AND deleted_at IS NULL',
      propertyId,
    )!.n,
  unitRowsUpTo: (propertyId, limit) =>
    countUpTo(db, 'SELECT 1 FROM units WHERE property_id = ?', propertyId, limit),
  pageOfUnits(propertyId, includeDeleted, paging) {
    const live = includeDeleted ? '' : ' AND u.deleted_at IS NULL';
    const total = one<{ total: number }>(
      db,
      `SELECT count(*) AS total FROM units u WHERE u.property_id = ?${live}`,
      propertyId,
    )!.total;
    const rows = many<UnitRecord>(
      db,
      `SELECT ${UNIT_COLUMNS} FROM units u WHERE u.property_id = ?${live}
       ORDER BY u.id LIMIT ? OFFSET ?`,
      propertyId,
      paging.itemsPerPage,
      paging.offset,
    );
    return { total, rows };
  },
  insertUnit(id, propertyId, rentable, now) {
    exec(
      db,
      `INSERT INTO units (id, property_id, rentable, published, created_at, updated_at)
       VALUES (?, ?, ?, 0, ?, ?)`,
      id,
      propertyId,
      rentable ? 1 : 0,
      now,
      now,
    );
  },
  updateUnit(id, rentable, published, now) {
    exec(
      db,
      'UPDATE units SET rentable = ?, published = ?, updated_at = ? WHERE id = ?',
      rentable ? 1 : 0,
      published ? 1 : 0,
      now,
      id,
    );
  },
  deleteUnit(id, now) {
    exec(
      db,
      'UPDATE units SET deleted_at = ?, published = 0, updated_at = ? WHERE id = ?',
      now,
      now,
      id,
    );
  },
  writeFeatures(unitId, propertyId, features) {
    exec(db, 'DELETE FROM unit_features WHERE unit_id = ?', unitId);
    for (const [position, f] of features.entries()) {
      exec(
        db,
        `INSERT INTO unit_features (unit_id, position, property_id, applicability, category, name, value)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        unitId,
        position,
        propertyId,
        f.applicability,
        f.category,
        f.name,
        f.value,
      );
    }
  },
  refreshCounters: (propertyId, now) => refreshCounters(db, propertyId, now),
  units: (ids) => readUnits(db, ids),
  appendEvents: (batch) => appendEvents(db, batch),
});
