import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs, serialKey } from './columns';

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    ownerId: text(),
    url: text().notNull(),
    description: text(),
    types: json().$type<string[]>().notNull(),
    enabled: boolean().notNull(),
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: epochMs(),
    disabledReason: text(),
    failingSince: epochMs(),
    cursor: bigint({ mode: 'number' }).notNull(),
    /**
     * While set and not past: an attempt to this endpoint is in flight on some
     * instance (one at a time per endpoint); past it, the claimer is presumed dead.
     */
    deliveryClaimedUntil: epochMs(),
    /** src/db/sqlite/schema/webhooks.ts: the earliest due of its deliveries that may go; null with none. */
    nextAttemptAt: epochMs(),
    pendingDeliveries: integer().notNull().default(0),
    consecutiveFailures: integer().notNull().default(0),
    slow: boolean().notNull().default(false),
    createdAt: epochMs().notNull(),
    updatedAt: epochMs().notNull(),
  },
  (table) => [
    index('webhook_endpoints_owner_id').on(table.ownerId),
    index('webhook_endpoints_due').on(table.enabled, table.slow, table.nextAttemptAt),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: serialKey(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: bigint({ mode: 'number' }).notNull(),
    eventType: text().notNull(),
    resource: text().notNull(),
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
  (table) => [
    index('webhook_deliveries_endpoint_id').on(table.endpointId, table.id),
    index('webhook_deliveries_next')
      .on(table.endpointId, table.nextAttemptAt, table.id)
      .where(sql`status = 'pending' AND NOT blocked`),
    // With the id: the first pending delivery of a resource is its first entry.
    index('webhook_deliveries_resource').on(
      table.endpointId,
      table.resource,
      table.status,
      table.id,
    ),
  ],
);
