import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The outbox of resource changes (docs/events-and-webhooks.md): one row per
 * change, appended in the change's own write transaction. `id` is assigned
 * inside that transaction and SQLite admits one writer at a time, so rows
 * commit in id order and a reader's snapshot always holds a prefix of ids.
 * AUTOINCREMENT: an id is never reused, even after pruning emptied the table.
 */
export const events = sqliteTable(
  'events',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    type: text().notNull(),
    occurredAt: integer({ mode: 'timestamp_ms' }).notNull(),
    resourceKind: text().notNull(),
    resourceId: text().notNull(),
    /** The property owner the event belongs to; null for catalogue and page events (employees only). */
    ownerId: text(),
    /** JSON: the resource as its GET answers after the change, `{id}` once removed, or what names a large one. */
    data: text().notNull(),
  },
  (table) => [
    index('events_owner_id').on(table.ownerId, table.id),
    // A `types` filter reads each type's ids in order from one of these and
    // merges them, so its cost never grows with the events it skips.
    index('events_owner_type').on(table.ownerId, table.type, table.id),
    index('events_type').on(table.type, table.id),
    index('events_occurred_at').on(table.occurredAt),
  ],
);

export type EventRow = typeof events.$inferSelect;
