import { sql } from 'drizzle-orm';
import { boolean, epochMsNumber, integer, text } from './columns';
import { properties } from './properties';
import { index, primaryKey, table } from './table';

/** Units of a property (at most 30); a delete is soft (`deletedAt`). */
export const units = table(
  'units',
  {
    id: text().primaryKey(),
    propertyId: text()
      .notNull()
      .references(() => properties.columns.id),
    rentable: boolean().notNull(),
    published: boolean().notNull().default(false),
    deletedAt: epochMsNumber(),
    createdAt: epochMsNumber().notNull(),
    updatedAt: epochMsNumber().notNull(),
  },
  (t) => [
    index('units_property_idx').on(t.propertyId, t.id),
    // Only the deleted units (few): the features filter skips them without reading unit rows.
    index('units_deleted_idx')
      .on(t.id)
      .where((column) => sql`${column(t.deletedAt)} IS NOT NULL`),
  ],
);

/**
 * Features of a unit, one row each, so `features[i][...]` list filters use an
 * index. `propertyId` is copied from the unit: the filter answers property ids.
 */
export const unitFeatures = table(
  'unit_features',
  {
    unitId: text()
      .notNull()
      .references(() => units.columns.id),
    position: integer().notNull(),
    propertyId: text().notNull(),
    applicability: text().notNull(),
    category: text().notNull(),
    name: text().notNull(),
    value: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.unitId, t.position] }),
    // Covers the features filter: matching properties in order, counted without row reads.
    index('unit_features_name_value_idx').on(t.name, t.value, t.propertyId, t.unitId),
    index('unit_features_category_name_idx').on(t.category, t.name),
  ],
);
