import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { fail } from '@/kernel/errors';
import { unitEvents } from '@/listings/events';
import type { Paging } from '@/listings/paging';
import { MAX_UNITS } from '@/listings/properties/schemas';
import { findProperty, refreshCounters } from '@/listings/properties/service';
import { ensureUnitRoom } from '@/listings/quotas';
import { exec, many, one, writeTransaction } from '@/listings/sql';
import { toUnits, UNIT_COLUMNS, type UnitRecord } from '@/listings/units/representation';
import type { Unit, UnitCreate, UnitFeature, UnitPatch } from '@/listings/units/schemas';

function writeFeatures(db: Db, unitId: string, propertyId: string, features: UnitFeature[]) {
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
}

/** GET /properties/{id}/units: a page in id (creation) order; deleted ones only on request. */
export function listUnits(
  db: Db,
  propertyId: string,
  caller: Caller | null,
  includeDeleted: boolean,
  paging: Paging,
) {
  findProperty(db, propertyId, caller);
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
  return { total, units: toUnits(db, rows) };
}

function findUnit(db: Db, propertyId: string, unitId: string): UnitRecord {
  const row = one<UnitRecord>(
    db,
    `SELECT ${UNIT_COLUMNS} FROM units u WHERE u.id = ? AND u.property_id = ?`,
    unitId,
    propertyId,
  );
  if (!row) throw fail('unit.not_found');
  return row;
}

export function getUnit(db: Db, propertyId: string, unitId: string, caller: Caller | null): Unit {
  findProperty(db, propertyId, caller);
  return toUnits(db, [findUnit(db, propertyId, unitId)])[0]!;
}

/** Counted from the units, not the stored counters, so a limit holds even before a reconcile. */
const liveUnits = (db: Db, propertyId: string) =>
  one<{ n: number }>(
    db,
    'SELECT count(*) AS n FROM units WHERE property_id = ? AND deleted_at IS NULL',
    propertyId,
  )!.n;

/** Unit writes are refused (409) on an archived property; answers its owner. */
function writableProperty(db: Db, propertyId: string, caller: Caller | null): string {
  const property = findProperty(db, propertyId, caller);
  if (property.archived) throw fail('property.archived');
  return property.owner_id;
}

/** POST /properties/{id}/units: 409 past 30 live units. Returns the new unit's id. */
export function addUnit(
  db: Db,
  propertyId: string,
  caller: Caller | null,
  input: UnitCreate,
  now: number,
  unitQuota?: number,
): string {
  return writeTransaction(db, () => {
    const ownerId = writableProperty(db, propertyId, caller);
    if (liveUnits(db, propertyId) >= MAX_UNITS) throw fail('unit.limit_reached');
    if (unitQuota !== undefined) ensureUnitRoom(db, propertyId, caller, unitQuota);
    const id = uuidv7(now);
    exec(
      db,
      `INSERT INTO units (id, property_id, rentable, published, created_at, updated_at)
       VALUES (?, ?, ?, 0, ?, ?)`,
      id,
      propertyId,
      input?.rentable === false ? 0 : 1,
      now,
      now,
    );
    writeFeatures(db, id, propertyId, input?.features ?? []);
    refreshCounters(db, propertyId, now);
    unitEvents(db, 'unit.created', ownerId, [id], now);
    return id;
  });
}

/** PATCH: 409 for a deleted unit or a published unit that is not rentable. */
export function patchUnit(
  db: Db,
  propertyId: string,
  unitId: string,
  caller: Caller | null,
  patch: UnitPatch,
  now: number,
) {
  writeTransaction(db, () => {
    const ownerId = writableProperty(db, propertyId, caller);
    const unit = findUnit(db, propertyId, unitId);
    if (unit.deleted_at !== null) throw fail('unit.deleted');
    const rentable = patch.rentable ?? unit.rentable === 1;
    const published = patch.published ?? unit.published === 1;
    if (published && !rentable) throw fail('unit.not_rentable');
    exec(
      db,
      'UPDATE units SET rentable = ?, published = ?, updated_at = ? WHERE id = ?',
      rentable ? 1 : 0,
      published ? 1 : 0,
      now,
      unitId,
    );
    if (patch.features) writeFeatures(db, unitId, propertyId, patch.features);
    refreshCounters(db, propertyId, now);
    unitEvents(db, 'unit.updated', ownerId, [unitId], now);
  });
}

/** DELETE: a soft delete that also unpublishes; 409 for the last live unit or one already deleted. */
export function deleteUnit(
  db: Db,
  propertyId: string,
  unitId: string,
  caller: Caller | null,
  now: number,
) {
  writeTransaction(db, () => {
    const ownerId = writableProperty(db, propertyId, caller);
    const unit = findUnit(db, propertyId, unitId);
    if (unit.deleted_at !== null) throw fail('unit.deleted');
    if (liveUnits(db, propertyId) <= 1) throw fail('unit.last_live');
    exec(
      db,
      'UPDATE units SET deleted_at = ?, published = 0, updated_at = ? WHERE id = ?',
      now,
      now,
      unitId,
    );
    refreshCounters(db, propertyId, now);
    unitEvents(db, 'unit.deleted', ownerId, [unitId], now);
  });
}
