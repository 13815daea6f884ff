import { sql } from 'drizzle-orm';
import { bigInteger, integer, serialKey, text } from './columns';
import { index, table } from './table';

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
export const propertySortChanges = table(
  'property_sort_changes',
  {
    id: serialKey(),
    propertyId: text().notNull(),
    feedPosition: bigInteger().notNull(),
    type: text().notNull(),
    ownerId: text().notNull(),
    totalUnits: integer().notNull(),
    rentableUnits: integer().notNull(),
    newOwnerId: text(),
  },
  (t) => [
    index('property_sort_changes_property_idx').on(t.propertyId, t.feedPosition),
    index('property_sort_changes_position_idx').on(t.feedPosition),
    index('property_sort_changes_owner_idx').on(t.ownerId, t.feedPosition),
    index('property_sort_changes_new_owner_idx')
      .on(t.newOwnerId, t.feedPosition)
      .where((column) => sql`${column(t.newOwnerId)} IS NOT NULL`),
  ],
);
