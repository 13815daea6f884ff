import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs, serialKey } from './columns';

/** The events outbox; `id` order is commit order only under one writer (docs/postgresql.md). */
export const events = pgTable(
  'events',
  {
    id: serialKey(),
    type: text().notNull(),
    occurredAt: epochMs().notNull(),
    resourceKind: text().notNull(),
    resourceId: text().notNull(),
    ownerId: text(),
    // The exact JSON text served and signed: text, not json, keeps it byte for byte.
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
