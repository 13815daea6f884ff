import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { properties } from './properties';

/** Free-form additional data of a property: one JSON object, ≤ 64 KiB, kept as text. */
export const propertyAdditionalData = sqliteTable('property_additional_data', {
  propertyId: text()
    .primaryKey()
    .references(() => properties.id),
  data: text().notNull(),
  createdAt: integer().notNull(),
  updatedAt: integer().notNull(),
});
