import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { PROPERTY_SOURCES, PROPERTY_TYPES } from '../../schema/properties';
import { epochMsNumber, serialKey } from './columns';

/** The tables of the listings API; src/db/schema/ says what each column means. */
export const neighbourhoods = pgTable(
  'neighbourhoods',
  {
    id: text().primaryKey(),
    cityId: text().notNull(),
    name: text().notNull(),
    updatedAt: epochMsNumber().notNull(),
  },
  (table) => [index('neighbourhoods_city_name_idx').on(table.cityId, table.name, table.id)],
);

export const properties = pgTable(
  'properties',
  {
    seq: serialKey(),
    // A unique constraint, not only an index: units and additional data reference it.
    id: text().notNull().unique('properties_id_unique'),
    type: text({ enum: PROPERTY_TYPES }).notNull(),
    ownerId: text().notNull(),
    addressLine1: text().notNull(),
    addressLine2: text(),
    city: text().notNull(),
    cityId: text().notNull(),
    neighbourhoodId: text().references(() => neighbourhoods.id),
    postalCode: text().notNull(),
    country: text().notNull(),
    latitude: doublePrecision().notNull(),
    longitude: doublePrecision().notNull(),
    addressSearch: text().notNull(),
    totalUnits: integer().notNull(),
    rentableUnits: integer().notNull(),
    publishedUnits: integer().notNull().default(0),
    unitsCounter: integer().notNull(),
    verified: boolean().notNull().default(false),
    yearOfConstruction: integer(),
    isVisitable: boolean().notNull().default(false),
    source: text({ enum: PROPERTY_SOURCES }).notNull(),
    published: boolean().notNull().default(false),
    archived: boolean().notNull().default(false),
    reasonToUnpublish: text(),
    reasonToUnpublishExtraInfo: text(),
    createdAt: epochMsNumber().notNull(),
    updatedAt: epochMsNumber().notNull(),
  },
  (table) => [
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
    // PostgreSQL only: a city × type list sorted by a unit counter reads its
    // page straight from the index. SQLite sorts those matches instead (its
    // plan is chosen by the service, docs/listings-query-plans.md); here the
    // planner would walk the whole counter index filtering by city.
    index('properties_city_type_total_units_idx').on(
      table.cityId,
      table.type,
      table.totalUnits,
      table.id,
    ),
    index('properties_city_type_rentable_units_idx').on(
      table.cityId,
      table.type,
      table.rentableUnits,
      table.id,
    ),
    // The address substring search (SQLite: the FTS5 trigram table): a
    // `LIKE '%…%'` of three or more characters is answered from this index.
    index('properties_address_search_trgm_idx').using(
      'gin',
      table.addressSearch.op('gin_trgm_ops'),
    ),
  ],
);

export const propertyAdditionalData = pgTable('property_additional_data', {
  propertyId: text()
    .primaryKey()
    .references(() => properties.id),
  data: text().notNull(),
  createdAt: epochMsNumber().notNull(),
  updatedAt: epochMsNumber().notNull(),
});

/** Properties per (city, type, rentableUnits, published, archived); kept by triggers. */
export const propertyCounts = pgTable(
  'property_counts',
  {
    cityId: text().notNull(),
    type: text().notNull(),
    rentableUnits: integer().notNull(),
    published: boolean().notNull(),
    archived: boolean().notNull(),
    properties: integer().notNull(),
  },
  (table) => [
    primaryKey({
      name: 'property_counts_pk',
      columns: [table.cityId, table.type, table.rentableUnits, table.published, table.archived],
    }),
  ],
);

/** A property's sort fields before a write changed them (src/db/schema/property-sort-changes.ts). */
export const propertySortChanges = pgTable(
  'property_sort_changes',
  {
    id: serialKey(),
    propertyId: text().notNull(),
    feedPosition: bigint({ mode: 'number' }).notNull(),
    type: text().notNull(),
    ownerId: text().notNull(),
    totalUnits: integer().notNull(),
    rentableUnits: integer().notNull(),
    newOwnerId: text(),
  },
  (table) => [
    index('property_sort_changes_property_idx').on(table.propertyId, table.feedPosition),
    index('property_sort_changes_position_idx').on(table.feedPosition),
    index('property_sort_changes_owner_idx').on(table.ownerId, table.feedPosition),
    index('property_sort_changes_new_owner_idx')
      .on(table.newOwnerId, table.feedPosition)
      .where(sql`${table.newOwnerId} IS NOT NULL`),
  ],
);

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
