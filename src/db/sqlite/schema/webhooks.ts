import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Webhook endpoints (docs/events-and-webhooks.md). `ownerId` null: an
 * employee's endpoint, sent every event; else a customer's, sent the events
 * of its own properties. `cursor` is the last event id fanned out to it.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    ownerId: text(),
    url: text().notNull(),
    description: text(),
    /** Event types sent (JSON array); empty: every type. */
    types: text({ mode: 'json' }).$type<string[]>().notNull(),
    enabled: integer({ mode: 'boolean' }).notNull(),
    secret: text().notNull(),
    /** The secret before the last rotation: still signs until `previousSecretExpiresAt`. */
    previousSecret: text(),
    previousSecretExpiresAt: integer({ mode: 'timestamp_ms' }),
    disabledReason: text(),
    /** The first failed attempt since the last success. */
    failingSince: integer({ mode: 'timestamp_ms' }),
    cursor: integer().notNull(),
    /**
     * While set and not past: an attempt to this endpoint is in flight on some
     * instance (one at a time per endpoint); past it, the claimer is presumed dead.
     */
    deliveryClaimedUntil: integer({ mode: 'timestamp_ms' }),
    /**
     * When its next delivery is due: the earliest of its pending deliveries
     * not waiting behind another of their resource; null with none. The
     * scheduler reads endpoints by it, never the deliveries.
     */
    nextAttemptAt: integer({ mode: 'timestamp_ms' }),
    /** Its pending deliveries (the quotas read it instead of counting them). */
    pendingDeliveries: integer().notNull().default(0),
    /** Its attempts that failed since its last success. */
    consecutiveFailures: integer().notNull().default(0),
    /** In the slow lane: its last attempts all failed (`SLOW_LANE_AFTER_FAILURES`); a success ends it. */
    slow: integer({ mode: 'boolean' }).notNull().default(false),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    index('webhook_endpoints_owner_id').on(table.ownerId),
    index('webhook_endpoints_due').on(table.enabled, table.slow, table.nextAttemptAt),
  ],
);

/**
 * One event to send to one endpoint, with its attempts so far. The body sent
 * is built from the event row (`eventId`) at each attempt, so a change is
 * stored once however many endpoints receive it.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: integer().notNull(),
    eventType: text().notNull(),
    /** `kind:id` of the event's resource: deliveries of one resource go out in id order. */
    resource: text().notNull(),
    /** An earlier delivery of its resource to its endpoint is pending: this one waits for it. */
    blocked: integer({ mode: 'boolean' }).notNull().default(false),
    status: text({ enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attempts: integer().notNull(),
    nextAttemptAt: integer({ mode: 'timestamp_ms' }),
    firstAttemptAt: integer({ mode: 'timestamp_ms' }),
    lastAttemptAt: integer({ mode: 'timestamp_ms' }),
    responseStatus: integer(),
    durationMs: integer(),
    error: text(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    index('webhook_deliveries_endpoint_id').on(table.endpointId, table.id),
    // An endpoint's next delivery is the first entry: a point read, whatever its backlog.
    index('webhook_deliveries_next')
      .on(table.endpointId, table.nextAttemptAt, table.id)
      .where(sql`status = 'pending' AND blocked = 0`),
    // `id` last as on PostgreSQL; SQLite's index ends in the rowid anyway.
    index('webhook_deliveries_resource').on(
      table.endpointId,
      table.resource,
      table.status,
      table.id,
    ),
  ],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
