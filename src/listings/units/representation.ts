import type { Unit, UnitFeature } from '@/listings/units/schemas';

/** A unit row as SQLite returns it (PostgreSQL's stores select the same shape). */
export interface UnitRecord {
  id: string;
  property_id: string;
  rentable: number;
  published: number;
  deleted_at: number | null;
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
