import { epochMs, serialKey, text } from './columns';
import { index, table } from './table';

/**
 * The outbox of resource changes (docs/events-and-webhooks.md): one row per
 * change, appended in the change's own write transaction. `id` is assigned
 * inside that transaction; on SQLite, which admits one writer at a time,
 * rows commit in id order and a reader's snapshot always holds a prefix of
 * ids (on PostgreSQL only under one writer, docs/postgresql.md).
 * AUTOINCREMENT: an id is never reused, even after pruning emptied the table.
 */
export const events = table(
  'events',
  {
    id: serialKey({ neverReused: true }),
    type: text().notNull(),
    occurredAt: epochMs().notNull(),
    resourceKind: text().notNull(),
    resourceId: text().notNull(),
    /** The property owner the event belongs to; null for catalogue and page events (employees only). */
    ownerId: text(),
    /**
     * JSON: the resource as its GET answers after the change, `{id}` once removed, or what names a
     * large one. The exact text served and signed: text, not json, keeps it byte for byte.
     */
    data: text().notNull(),
  },
  (t) => [
    // A `types` filter reads each type's ids in order from one of these and
    // merges them, so its cost never grows with the events it skips. An
    // owner's feed without a filter reads every type the same way: no
    // (owner_id, id) index, whose leaf for a random owner was one more page
    // each create wrote and each checkpoint copied (docs/performance.md).
    index('events_owner_type').on(t.ownerId, t.type, t.id),
    index('events_type').on(t.type, t.id),
    index('events_occurred_at').on(t.occurredAt),
  ],
);
