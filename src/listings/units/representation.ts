import type { Db } from '@/db/client';
import { many } from '@/listings/sqlite-statements';
import type { Unit, UnitFeature } from '@/listings/units/schemas';

/** A unit row as SQLite returns it. */
export interface UnitRecord {
  id: string;
  property_id: string;
  rentable: number;
  published: number;
  deleted_at: number | null;
}

export const UNIT_COLUMNS = 'u.id, u.property_id, u.rentable, u.published, u.deleted_at';

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

export function toUnits(db: Db, rows: UnitRecord[]): Unit[] {
  const features = featuresOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toUnit(row, features.get(row.id) ?? []));
}

/** A unit as answered, from its row and its features in position order. */
export const toUnit = (row: UnitRecord, features: UnitFeature[]): Unit => ({
  id: row.id,
  propertyId: row.property_id,
  rentable: row.rentable === 1,
  published: row.published === 1,
  deleted: row.deleted_at !== null,
  deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at).toISOString(),
  features,
});

/** Units by id, as GET answers them, in id order. */
export const readUnits = (db: Db, ids: readonly string[]): Unit[] =>
  toUnits(
    db,
    many<UnitRecord>(
      db,
      `SELECT ${UNIT_COLUMNS} FROM units u WHERE u.id IN (SELECT value FROM json_each(?)) ORDER BY u.id`,
      JSON.stringify(ids),
    ),
  );
