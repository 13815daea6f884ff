import { desc, eq, sql } from 'drizzle-orm';
import { recordAudit } from '@/audit/sqlite-store';
import type { Db, Tx } from '@/db/sqlite/client';
import { events, webhookDeliveries, webhookEndpoints } from '@/db/sqlite/schema';
import type { StoredEvent } from '@/events/store';
import { runNow, type Steps } from '@/kernel/steps';
import type { WebhookTables } from '@/webhooks/tables';
import { webhookOperations } from './operations';
import { claimable, queueRules } from './queue-rules';
import type { NextDelivery, WebhookStore } from './store';
import { type SummaryRow, summaryQuery } from './summary';

/**
 * An endpoint's next delivery: of its pending ones that are not blocked
 * (the first of their resource) and due, the one due longest ago, then the
 * oldest. With its event's fields, the body's source; a delivery whose
 * event was pruned is never sent (`pruneDeliveries` fails it). Pinned to
 * `webhook_deliveries_next`, whose first entry it is: on a database never
 * analysed, SQLite would otherwise pick an index that walks the endpoint's
 * whole backlog.
 */
const NEXT_DELIVERY = `SELECT d.id, ev.type, ev.occurred_at AS occurredAt, ev.data
  FROM webhook_deliveries d INDEXED BY webhook_deliveries_next JOIN events ev ON ev.id = d.event_id
  WHERE d.endpoint_id = ?1 AND d.status = 'pending' AND d.blocked = 0 AND d.next_attempt_at <= ?2
  ORDER BY d.next_attempt_at, d.id LIMIT 1`;

/** The due time of an endpoint's next delivery, due or not: the first entry of `webhook_deliveries_next`. */
const REFRESH_DUE = `UPDATE webhook_endpoints SET next_attempt_at = (
    SELECT d.next_attempt_at FROM webhook_deliveries d INDEXED BY webhook_deliveries_next
    WHERE d.endpoint_id = ?1 AND d.status = 'pending' AND d.blocked = 0
    ORDER BY d.next_attempt_at LIMIT 1)
  WHERE id = ?1`;

/**
 * Enabled endpoints of one lane whose next delivery is due and that no
 * attempt holds: a range of `webhook_endpoints_due`, pinned like
 * `NEXT_DELIVERY`, whatever the number of pending deliveries.
 */
const DUE_ENDPOINTS = `SELECT id AS endpointId, owner_id AS ownerId, slow
  FROM webhook_endpoints INDEXED BY webhook_endpoints_due
  WHERE enabled = 1 AND slow = ?3 AND next_attempt_at <= ?1
    AND (delivery_claimed_until IS NULL OR delivery_claimed_until <= ?1)
  ORDER BY next_attempt_at LIMIT ?2`;

/** The first pending delivery of a resource at an endpoint (`webhook_deliveries_resource`, then the rowid). */
const FIRST_PENDING = `SELECT id FROM webhook_deliveries
  WHERE endpoint_id = ?1 AND resource = ?2 AND status = 'pending' ORDER BY id LIMIT 1`;

/**
 * An endpoint's finished deliveries older than its newest `keep` finished
 * ones (parameters: the endpoint, `keep`); walks the endpoint's
 * deliveries newest first on `webhook_deliveries_endpoint_id`.
 */
const TRIM_FINISHED = `DELETE FROM webhook_deliveries WHERE endpoint_id = ?1 AND status <> 'pending'
  AND id < coalesce((SELECT id FROM webhook_deliveries WHERE endpoint_id = ?1 AND status <> 'pending'
    ORDER BY id DESC LIMIT 1 OFFSET ?2 - 1), 0)`;

/** The webhook queries inside one SQLite write transaction; every one answers at once. */
const sqliteWebhookTables = (db: Db, tx: Tx): WebhookTables => ({
  // The write transaction (BEGIN IMMEDIATE) already holds SQLite's only write lock.
  endpoint: (id) => tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get(),
  // The write transaction (BEGIN IMMEDIATE) already runs alone.
  lockOwner: () => {},
  countOwned: (owner) =>
    tx
      .select({ n: sql<number>`count(*)` })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.ownerId, owner))
      .get()!.n,
  lastEventId: () =>
    tx
      .select({ id: sql<number>`coalesce(max(${events.id}), 0)` })
      .from(events)
      .get()!.id,
  insertEndpoint: (values) => tx.insert(webhookEndpoints).values(values).returning().get(),
  updateEndpoint: (id, change) =>
    tx.update(webhookEndpoints).set(change).where(eq(webhookEndpoints.id, id)).returning().get(),
  deleteEndpoint: (id) => {
    tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).run();
  },
  delivery: (id) => tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get(),
  updateDelivery: (id, change) =>
    tx.update(webhookDeliveries).set(change).where(eq(webhookDeliveries.id, id)).returning().get(),
  // The same connection as `tx`: read inside its transaction.
  eventsAfter: (after, limit) =>
    db.$client
      .query(
        `SELECT id, type, occurred_at AS occurredAt, resource_kind AS resourceKind,
           resource_id AS resourceId, owner_id AS ownerId, data FROM events
         WHERE id > ? ORDER BY id LIMIT ?`,
      )
      .all(after, limit) as StoredEvent[],
  insertDeliveries: (rows) => {
    tx.insert(webhookDeliveries).values(rows).run();
  },
  pendingResources: (endpointId, resources) => {
    const first = db.$client.query(FIRST_PENDING);
    return new Set(resources.filter((resource) => first.get(endpointId, resource) !== null));
  },
  firstPending: (endpointId, resource) =>
    (db.$client.query(FIRST_PENDING).get(endpointId, resource) as { id: number } | null)?.id ??
    null,
  refreshDue: (endpointId) => {
    db.$client.query(REFRESH_DUE).run(endpointId);
  },
  giveUpPending(endpointId, error) {
    const pending = "FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'";
    const oldest = db.$client.query(`SELECT min(event_id) AS id ${pending}`).get(endpointId) as {
      id: number | null;
    };
    db.$client
      .query(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = ?
        WHERE id IN (SELECT id ${pending})`)
      .run(error, endpointId);
    return oldest.id;
  },
  trimFinished: (endpointId, keep) => db.$client.query(TRIM_FINISHED).run(endpointId, keep).changes,
  claimEndpoint: (endpointId, now, until) =>
    tx
      .update(webhookEndpoints)
      .set({ deliveryClaimedUntil: new Date(until) })
      .where(claimable(webhookEndpoints, endpointId, now))
      .returning()
      .get(),
  nextDelivery: (endpointId, now) =>
    db.$client.query(NEXT_DELIVERY).get(endpointId, now) as NextDelivery | null,
  deleteFinished: (cutoff) =>
    db.$client
      .query(
        `DELETE FROM webhook_deliveries WHERE status <> 'pending'
           AND (created_at < ? OR NOT EXISTS (SELECT 1 FROM events WHERE id = event_id))`,
      )
      .run(cutoff).changes,
  giveUpOrphaned: (error) =>
    (
      db.$client
        .query(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = ?
           WHERE status = 'pending' AND NOT EXISTS (SELECT 1 FROM events WHERE id = event_id)
           RETURNING endpoint_id AS endpointId, resource, blocked`,
        )
        .all(error) as { endpointId: string; resource: string; blocked: number }[]
    ).map((row) => ({ ...row, blocked: row.blocked === 1 })),
  giveUpDueBefore: (before, error) =>
    (
      db.$client
        .query(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = ?
           WHERE status = 'pending' AND next_attempt_at < ?
           RETURNING endpoint_id AS endpointId, resource, blocked`,
        )
        .all(error, before) as { endpointId: string; resource: string; blocked: number }[]
    ).map((row) => ({ ...row, blocked: row.blocked === 1 })),
  endpointIds: () =>
    (db.$client.query('SELECT id FROM webhook_endpoints').all() as { id: string }[]).map(
      (row) => row.id,
    ),
  recordAudit: (context, entry) => recordAudit(tx, context, entry),
  endpointsOf: (owner) =>
    tx
      .select()
      .from(webhookEndpoints)
      .where(owner === null ? undefined : eq(webhookEndpoints.ownerId, owner))
      .orderBy(webhookEndpoints.id)
      .all(),
  recentDeliveries: (endpointId, limit) =>
    tx
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId))
      .orderBy(desc(webhookDeliveries.id))
      .limit(limit)
      .all(),
});

/**
 * Webhooks on `bun:sqlite`: every answer at once, each operation in one
 * synchronous write transaction (nothing inside it is awaited).
 */
export function sqliteWebhookStore(db: Db) {
  const run = <T>(operation: (t: WebhookTables) => Steps<T>): T =>
    db.transaction((tx) => runNow(operation(sqliteWebhookTables(db, tx))), {
      behavior: 'immediate',
    });
  let claimsCleared = false;
  return {
    ...webhookOperations(run),
    ...queueRules(run, runNow, {
      laggingEndpoints: () =>
        (
          db.$client
            .query(
              `SELECT id FROM webhook_endpoints WHERE enabled = 1
                 AND cursor < (SELECT coalesce(max(id), 0) FROM events) ORDER BY id`,
            )
            .all() as { id: string }[]
        ).map((row) => row.id),
    }),
    hasEnabledEndpoint: () =>
      db
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.enabled, true))
        .limit(1)
        .get() !== undefined,
    dueEndpoints(now, limit, slow) {
      if (!claimsCleared) {
        // One process delivers from a SQLite file, and it has claimed nothing
        // yet: a claim left in the file is a crashed process's, its attempt
        // to be repeated now rather than when the claim lapses.
        db.$client.run(
          'UPDATE webhook_endpoints SET delivery_claimed_until = NULL WHERE delivery_claimed_until IS NOT NULL',
        );
        claimsCleared = true;
      }
      return (
        db.$client.query(DUE_ENDPOINTS).all(now, limit, slow ? 1 : 0) as {
          endpointId: string;
          ownerId: string | null;
          slow: number;
        }[]
      ).map((row) => ({ ...row, slow: row.slow === 1 }));
    },
    releaseEndpoint(endpointId, until) {
      db.$client
        .query(
          `UPDATE webhook_endpoints SET delivery_claimed_until = NULL
           WHERE id = ? AND delivery_claimed_until = ?`,
        )
        .run(endpointId, until);
    },
    summarize: (since) => db.all<SummaryRow>(summaryQuery(since)),
  } satisfies WebhookStore;
}
