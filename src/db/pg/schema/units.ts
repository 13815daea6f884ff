import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMsNumber } from './columns';
import { properties } from './properties';

export const units = pgTable(
  'units',
  {
    id: text().primaryKey(),
    propertyId: text()
      .notNull()
      .references(() => properties.id),
    rentable: boolean().notNull(),
    published: boolean().notNull().default(false),
    deletedAt: epochMsNumber(),
    createdAt: epochMsNumber().notNull(),
    updatedAt: epochMsNumber().notNull(),
  },
  (table) => [
    index('units_property_idx').on(table.propertyId, table.id),
    index('units_deleted_idx').on(table.id).where(sql`${table.deletedAt} IS NOT NULL`),
  ],
);

export const unitFeatures = pgTable(
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
    index('unit_features_name_value_idx').on(
      table.name,
      table.value,
      table.propertyId,
      table.unitId,
    ),
    index('unit_features_category_name_idx').on(table.category, table.name),
  ],
);
