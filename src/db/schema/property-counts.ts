import { boolean, integer, text } from './columns';
import { primaryKey, table } from './table';

/**
 * How many properties share each combination of the low-cardinality list
 * filters (cityId × type × rentableUnits × published × archived): the `total`
 * of a list filtered only by these is a sum over a few cells instead of a
 * count over the table. Kept by triggers on `properties` (see migrations).
 */
export const propertyCounts = table(
  'property_counts',
  {
    cityId: text().notNull(),
    type: text().notNull(),
    rentableUnits: integer().notNull(),
    published: boolean().notNull(),
    archived: boolean().notNull(),
    properties: integer().notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.cityId, t.type, t.rentableUnits, t.published, t.archived],
      pgName: 'property_counts_pk',
    }),
  ],
);
