import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A property's sort fields as they were before a write changed them, kept
 * by a trigger on `properties` (see migrations) so a keyset walk sorted by
 * one of them keeps the order of the snapshot it started from
 * (src/listings/properties/walk-order.ts). `feedPosition` places the write
 * in the change feed: greater than the feed position of every snapshot that
 * does not see it. Rows at or before the oldest kept event are pruned with
 * the feed. `newOwnerId` is the owner a write moved the property to (null
 * when it kept the owner): a walk confined to one owner counts and reads
 * the changes of that owner's properties, those moved to it included, on
 * the two owner indexes.
 */
export const propertySortChanges = sqliteTable(
  'property_sort_changes',
  {
    id: integer().primaryKey(),
    propertyId: text().notNull(),
    feedPosition: integer().notNull(),
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
