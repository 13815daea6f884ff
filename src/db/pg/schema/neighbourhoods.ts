import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMsNumber } from './columns';

/** The tables of the listings API; src/db/sqlite/schema/ says what each column means. */
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
