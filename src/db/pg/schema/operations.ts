import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  json,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { epochMs, epochMsNumber, serialKey } from './columns';

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    scope: text().notNull(),
    key: text().notNull(),
    method: text().notNull(),
    path: text().notNull(),
    requestHash: text().notNull(),
    status: integer(),
    headers: json().$type<Record<string, string>>(),
    body: text(),
    createdAt: epochMsNumber().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.scope, table.key] }),
    index('idempotency_keys_created_at').on(table.createdAt),
    // A claim's eviction walks one caller's keys oldest first and stops:
    // without it each claim read every key of the caller and sorted them.
    index('idempotency_keys_scope_created_at').on(table.scope, table.createdAt),
  ],
);

export const jobRuns = pgTable(
  'job_runs',
  {
    id: serialKey(),
    job: text().notNull(),
    startedAt: epochMs().notNull(),
    finishedAt: epochMs().notNull(),
    outcome: text({ enum: ['succeeded', 'failed'] }).notNull(),
    details: json().$type<Record<string, unknown>>().notNull(),
    instance: text(),
    tick: epochMs(),
  },
  (table) => [index('job_runs_job_id').on(table.job, table.id)],
);

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
    /** src/db/schema/webhooks.ts: the earliest due of its deliveries that may go; null with none. */
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

/** The console's usage figures, one row per instance and bucket (src/db/schema/usage-buckets.ts). */
export const usageBuckets = pgTable(
  'usage_buckets',
  {
    resolution: text({ enum: ['minute', 'hour'] }).notNull(),
    series: text().notNull(),
    start: epochMsNumber().notNull(),
    instance: text().notNull(),
    requests: integer().notNull(),
    errors: integer().notNull(),
    latency: json().$type<number[]>().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.resolution, table.series, table.start, table.instance] }),
    index('usage_buckets_resolution_start').on(table.resolution, table.start),
  ],
);

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: serialKey(),
    recipient: text().notNull(),
    template: text().notNull(),
    language: text().notNull(),
    subject: text().notNull(),
    textBody: text(),
    htmlBody: text(),
    status: text({ enum: ['pending', 'sent', 'failed'] }).notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: epochMs().notNull(),
    claimedUntil: epochMs(),
    lastResponse: text(),
    createdAt: epochMs().notNull(),
    finishedAt: epochMs(),
  },
  (table) => [
    index('mail_outbox_due').on(table.status, table.nextAttemptAt),
    index('mail_outbox_finished_at').on(table.finishedAt),
  ],
);
