import { sql } from 'drizzle-orm';
import { bigInteger, boolean, epochMs, integer, json, serialKey, text } from './columns';
import { index, table } from './table';

/**
 * Webhook endpoints (docs/events-and-webhooks.md). `ownerId` null: an
 * employee's endpoint, sent every event; else a customer's, sent the events
 * of its own properties. `cursor` is the last event id fanned out to it.
 */
export const webhookEndpoints = table(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    ownerId: text(),
    url: text().notNull(),
    description: text(),
    /** Event types sent (JSON array); empty: every type. */
    types: json<string[]>().notNull(),
    enabled: boolean().notNull(),
    secret: text().notNull(),
    /** The secret before the last rotation: still signs until `previousSecretExpiresAt`. */
    previousSecret: text(),
    previousSecretExpiresAt: epochMs(),
    disabledReason: text(),
    /** The first failed attempt since the last success. */
    failingSince: epochMs(),
    cursor: bigInteger().notNull(),
    /**
     * While set and not past: an attempt to this endpoint is in flight on some
     * instance (one at a time per endpoint); past it, the claimer is presumed dead.
     */
    deliveryClaimedUntil: epochMs(),
    /**
     * When its next delivery is due: the earliest of its pending deliveries
     * not waiting behind another of their resource; null with none. The
     * scheduler reads endpoints by it, never the deliveries.
     */
    nextAttemptAt: epochMs(),
    /** Its pending deliveries (the quotas read it instead of counting them). */
    pendingDeliveries: integer().notNull().default(0),
    /** Its attempts that failed since its last success. */
    consecutiveFailures: integer().notNull().default(0),
    /** In the slow lane: its last attempts all failed (`SLOW_LANE_AFTER_FAILURES`); a success ends it. */
    slow: boolean().notNull().default(false),
    createdAt: epochMs().notNull(),
    updatedAt: epochMs().notNull(),
  },
  (t) => [
    index('webhook_endpoints_owner_id').on(t.ownerId),
    index('webhook_endpoints_due').on(t.enabled, t.slow, t.nextAttemptAt),
  ],
);

/**
 * One event to send to one endpoint, with its attempts so far. The body sent
 * is built from the event row (`eventId`) at each attempt, so a change is
 * stored once however many endpoints receive it.
 */
export const webhookDeliveries = table(
  'webhook_deliveries',
  {
    id: serialKey({ neverReused: true }),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.columns.id, { onDelete: 'cascade' }),
    eventId: bigInteger().notNull(),
    eventType: text().notNull(),
    /** `kind:id` of the event's resource: deliveries of one resource go out in id order. */
    resource: text().notNull(),
    /** An earlier delivery of its resource to its endpoint is pending: this one waits for it. */
    blocked: boolean().notNull().default(false),
    status: text({ enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attempts: integer().notNull(),
    nextAttemptAt: epochMs(),
    firstAttemptAt: epochMs(),
    lastAttemptAt: epochMs(),
    responseStatus: integer(),
    durationMs: integer(),
    error: text(),
    createdAt: epochMs().notNull(),
  },
  (t) => [
    index('webhook_deliveries_endpoint_id').on(t.endpointId, t.id),
    // An endpoint's next delivery is the first entry: a point read, whatever its backlog.
    // The condition as each database's migration wrote it (SQLite's boolean is 0 or 1).
    index('webhook_deliveries_next')
      .on(t.endpointId, t.nextAttemptAt, t.id)
      .where((_, dialect) =>
        dialect === 'sqlite'
          ? sql`status = 'pending' AND blocked = 0`
          : sql`status = 'pending' AND NOT blocked`,
      ),
    // `id` last on both; SQLite's index ends in the rowid anyway.
    index('webhook_deliveries_resource').on(t.endpointId, t.resource, t.status, t.id),
  ],
);
