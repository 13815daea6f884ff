import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { PROPERTY_SOURCES, PROPERTY_TYPES } from '../../stored-values';
import { epochMsNumber, serialKey } from './columns';
import { neighbourhoods } from './neighbourhoods';

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
