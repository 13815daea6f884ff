import { epochMsNumber, text } from './columns';
import { properties } from './properties';
import { table } from './table';

/** Free-form additional data of a property: one JSON object, ≤ 64 KiB, kept as text. */
export const propertyAdditionalData = table('property_additional_data', {
  propertyId: text()
    .primaryKey()
    .references(() => properties.columns.id),
  data: text().notNull(),
  createdAt: epochMsNumber().notNull(),
  updatedAt: epochMsNumber().notNull(),
});
