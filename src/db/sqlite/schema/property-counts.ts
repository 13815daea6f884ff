import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * How many properties share each combination of the low-cardinality list
 * filters (cityId × type × rentableUnits × published × archived): the `total`
 * of a list filtered only by these is a sum over a few cells instead of a
 * count over the table. Kept by triggers on `properties` (see migrations).
 */
export const propertyCounts = sqliteTable(
  'property_counts',
  {
    cityId: text().notNull(),
    type: text().notNull(),
    rentableUnits: integer().notNull(),
    published: integer({ mode: 'boolean' }).notNull(),
    archived: integer({ mode: 'boolean' }).notNull(),
    properties: integer().notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.cityId, table.type, table.rentableUnits, table.published, table.archived],
    }),
  ],
);
