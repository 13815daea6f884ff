import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { serialKey } from './columns';

/** A property's sort fields before a write changed them (src/db/sqlite/schema/property-sort-changes.ts). */
export const propertySortChanges = pgTable(
  'property_sort_changes',
  {
    id: serialKey(),
    propertyId: text().notNull(),
    feedPosition: bigint({ mode: 'number' }).notNull(),
    type: text().notNull(),
    ownerId: text().notNull(),
    totalUnits: integer().notNull(),
    rentableUnits: integer().notNull(),
    newOwnerId: text(),
  },
  (table) => [
    index('property_sort_changes_property_idx').on(table.propertyId, table.feedPosition),
    index('property_sort_changes_position_idx').on(table.feedPosition),
    index('property_sort_changes_owner_idx').on(table.ownerId, table.feedPosition),
    index('property_sort_changes_new_owner_idx')
      .on(table.newOwnerId, table.feedPosition)
      .where(sql`${table.newOwnerId} IS NOT NULL`),
  ],
);
