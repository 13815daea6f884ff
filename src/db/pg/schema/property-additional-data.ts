import { pgTable, text } from 'drizzle-orm/pg-core';
import { epochMsNumber } from './columns';
import { properties } from './properties';

export const propertyAdditionalData = pgTable('property_additional_data', {
  propertyId: text()
    .primaryKey()
    .references(() => properties.id),
  data: text().notNull(),
  createdAt: epochMsNumber().notNull(),
  updatedAt: epochMsNumber().notNull(),
});
