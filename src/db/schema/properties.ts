import { sql } from 'drizzle-orm';
import { index as pgIndex } from 'drizzle-orm/pg-core';
import { PROPERTY_SOURCES, PROPERTY_TYPES } from '../stored-values';
import { boolean, epochMsNumber, integer, real, serialKey, text } from './columns';
import { neighbourhoods } from './neighbourhoods';
import { index, table } from './table';

/**
 * A property with its location fields flattened into the row. `seq` is the
 * rowid alias on SQLite: stable across VACUUM, so the address trigram index
 * (an FTS5 external-content table kept by triggers, see migrations) can
 * point at it. The unit counters and `published` are derived from `units`
 * and rewritten in the same transaction as every unit write; `unitsCounter`
 * is the multi-listing counter, independent of the units once created.
 */
export const properties = table(
  'properties',
  {
    seq: serialKey(),
    // Unique: units and additional data reference it.
    id: text().notNull().unique('properties_id_unique'),
    type: text({ enum: PROPERTY_TYPES }).notNull(),
    ownerId: text().notNull(),
    addressLine1: text().notNull(),
    addressLine2: text(),
    city: text().notNull(),
    cityId: text().notNull(),
    neighbourhoodId: text().references(() => neighbourhoods.columns.id),
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
  // One index per list filter and sort field of GET /properties, each
  // ending in `id` so a filtered page is read in `_id` order without sorting.
  (t) => [
    index('properties_owner_idx').on(t.ownerId, t.id),
    index('properties_city_type_idx').on(t.cityId, t.type, t.id),
    index('properties_type_idx').on(t.type, t.id),
    index('properties_total_units_idx').on(t.totalUnits, t.id),
    index('properties_rentable_units_idx').on(t.rentableUnits, t.id),
    index('properties_published_idx').on(t.published, t.id),
    index('properties_archived_idx').on(t.archived, t.id),
    index('properties_neighbourhood_idx')
      .on(t.neighbourhoodId)
      .where((column) => sql`${column(t.neighbourhoodId)} IS NOT NULL`),
  ],
  {
    // PostgreSQL only.
    pg: (t) => [
      // A city × type list sorted by a unit counter reads its page straight
      // from the index. SQLite sorts those matches instead (its plan is
      // chosen by the service, docs/listings-query-plans.md); PostgreSQL's
      // planner would walk the whole counter index filtering by city.
      pgIndex('properties_city_type_total_units_idx').on(t.cityId, t.type, t.totalUnits, t.id),
      pgIndex('properties_city_type_rentable_units_idx').on(
        t.cityId,
        t.type,
        t.rentableUnits,
        t.id,
      ),
      // The address substring search (SQLite: the FTS5 trigram table, in a
      // migration): a `LIKE '%…%'` of three or more characters is answered
      // from this index.
      pgIndex('properties_address_search_trgm_idx').using(
        'gin',
        t.addressSearch.op('gin_trgm_ops'),
      ),
    ],
  },
);
