import { epochMsNumber, text } from './columns';
import { index, table } from './table';

/** The neighbourhood catalogue: `{id, cityId, name}`, written by employees. */
export const neighbourhoods = table(
  'neighbourhoods',
  {
    id: text().primaryKey(),
    cityId: text().notNull(),
    name: text().notNull(),
    updatedAt: epochMsNumber().notNull(),
  },
  (t) => [index('neighbourhoods_city_name_idx').on(t.cityId, t.name, t.id)],
);
