import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The neighbourhood catalogue: `{id, cityId, name}`, written by employees. */
export const neighbourhoods = sqliteTable(
  'neighbourhoods',
  {
    id: text().primaryKey(),
    cityId: text().notNull(),
    name: text().notNull(),
    updatedAt: integer().notNull(),
  },
  (table) => [index('neighbourhoods_city_name_idx').on(table.cityId, table.name, table.id)],
);

export type NeighbourhoodRow = typeof neighbourhoods.$inferSelect;
