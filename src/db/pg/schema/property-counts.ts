import { boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

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
