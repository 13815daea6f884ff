import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { properties } from './properties';

/** Units of a property (at most 30); a delete is soft (`deletedAt`). */
export const units = sqliteTable(
  'units',
  {
    id: text().primaryKey(),
    propertyId: text()
      .notNull()
      .references(() => properties.id),
    rentable: integer({ mode: 'boolean' }).notNull(),
    published: integer({ mode: 'boolean' }).notNull().default(false),
    deletedAt: integer(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (table) => [
    index('units_property_idx').on(table.propertyId, table.id),
    // Only the deleted units (few): the features filter skips them without reading unit rows.
    index('units_deleted_idx').on(table.id).where(sql`${table.deletedAt} IS NOT NULL`),
  ],
);

/**
 * Features of a unit, one row each, so `features[i][...]` list filters use an
 * index. `propertyId` is copied from the unit: the filter answers property ids.
 */
export const unitFeatures = sqliteTable(
  'unit_features',
  {
    unitId: text()
      .notNull()
      .references(() => units.id),
    position: integer().notNull(),
    propertyId: text().notNull(),
    applicability: text().notNull(),
    category: text().notNull(),
    name: text().notNull(),
    value: text().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.unitId, table.position] }),
    // Covers the features filter: matching properties in order, counted without row reads.
    index('unit_features_name_value_idx').on(
      table.name,
      table.value,
      table.propertyId,
      table.unitId,
    ),
    index('unit_features_category_name_idx').on(table.category, table.name),
  ],
);

export type UnitRow = typeof units.$inferSelect;
export type UnitFeatureRow = typeof unitFeatures.$inferSelect;
