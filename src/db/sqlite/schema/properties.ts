import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PROPERTY_SOURCES, PROPERTY_TYPES } from '../../stored-values';
import { neighbourhoods } from './neighbourhoods';

/**
 * A property with its location fields flattened into the row. `seq` is the
 * rowid alias: stable across VACUUM, so the address trigram index (an FTS5
 * external-content table kept by triggers, see migrations) can point at it.
 * The unit counters and `published` are derived from `units` and rewritten in
 * the same transaction as every unit write; `unitsCounter` is
 * the multi-listing counter, independent of the units once created.
 */
export const properties = sqliteTable(
  'properties',
  {
    seq: integer().primaryKey(),
    id: text().notNull(),
    type: text({ enum: PROPERTY_TYPES }).notNull(),
    ownerId: text().notNull(),
    addressLine1: text().notNull(),
    addressLine2: text(),
    city: text().notNull(),
    cityId: text().notNull(),
    neighbourhoodId: text().references(() => neighbourhoods.id),
    postalCode: text().notNull(),
    country: text().notNull(),
    latitude: real().notNull(),
    longitude: real().notNull(),
    /** Lower-cased address fields joined by U+0001: what `address=` searches. */
    addressSearch: text().notNull(),
    totalUnits: integer().notNull(),
    rentableUnits: integer().notNull(),
    publishedUnits: integer().notNull().default(0),
    unitsCounter: integer().notNull(),
    verified: integer({ mode: 'boolean' }).notNull().default(false),
    yearOfConstruction: integer(),
    isVisitable: integer({ mode: 'boolean' }).notNull().default(false),
    source: text({ enum: PROPERTY_SOURCES }).notNull(),
    published: integer({ mode: 'boolean' }).notNull().default(false),
    archived: integer({ mode: 'boolean' }).notNull().default(false),
    reasonToUnpublish: text(),
    reasonToUnpublishExtraInfo: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  // One index per list filter and sort field of GET /properties, each
  // ending in `id` so a filtered page is read in `_id` order without sorting.
  (table) => [
    uniqueIndex('properties_id_unique').on(table.id),
    index('properties_owner_idx').on(table.ownerId, table.id),
    index('properties_city_type_idx').on(table.cityId, table.type, table.id),
    index('properties_type_idx').on(table.type, table.id),
    index('properties_total_units_idx').on(table.totalUnits, table.id),
    index('properties_rentable_units_idx').on(table.rentableUnits, table.id),
    index('properties_published_idx').on(table.published, table.id),
    index('properties_archived_idx').on(table.archived, table.id),
    index('properties_neighbourhood_idx')
      .on(table.neighbourhoodId)
      .where(sql`${table.neighbourhoodId} IS NOT NULL`),
  ],
);

export type PropertyRow = typeof properties.$inferSelect;
