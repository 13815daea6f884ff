import { desc, eq, sql } from 'drizzle-orm';
import { recordAudit } from '@/audit/log';
import type { Db, Tx } from '@/db/client';
import { events, webhookDeliveries, webhookEndpoints } from '@/db/schema';
import type { StoredEvent } from '@/events/feed';
import { runNow, type Steps } from '@/kernel/steps';
import { deliveryBody, EVENT_NOT_KEPT } from './deliveries';
import { fanOutAll, fanOutBatchOf } from './fan-out';
import { webhookOperations } from './operations';
import type { WebhookStore, WebhookTables } from './store';

/**
 * An endpoint's finished deliveries older than its newest `keep` finished
 * ones (parameters: the endpoint, `keep`); walks the endpoint's
 * deliveries newest first on `webhook_deliveries_endpoint_id`.
 */
const TRIM_FINISHED = `DELETE FROM webhook_deliveries WHERE endpoint_id = ?1 AND status <> 'pending'
  AND id < coalesce((SELECT id FROM webhook_deliveries WHERE endpoint_id = ?1 AND status <> 'pending'
    ORDER BY id DESC LIMIT 1 OFFSET ?2 - 1), 0)`;

/** The webhook queries inside one SQLite write transaction; every one answers at once. */
const tablesOf = (db: Db, tx: Tx): WebhookTables => ({
  // The write transaction (BEGIN IMMEDIATE) already holds SQLite's only write lock.
  endpoint: (id) => tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get(),
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
  pendingCount: (endpointId) =>
    (
      db.$client
        .query(
          "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'",
        )
        .get(endpointId) as { n: number }
    ).n,
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
  trimFinished: (endpointId, keep) => {
    db.$client.query(TRIM_FINISHED).run(endpointId, keep);
  },
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
    db.transaction((tx) => runNow(operation(tablesOf(db, tx))), { behavior: 'immediate' });
  return {
    ...webhookOperations(run),
    hasEnabledEndpoint: () =>
      db
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.enabled, true))
        .limit(1)
        .get() !== undefined,
    fanOut(now, quotas) {
      const last = db.$client.query('SELECT coalesce(max(id), 0) AS id FROM events').get() as {
        id: number;
      };
      // Endpoints already at the last event need no write transaction (the idle case).
      const lagging = db.$client
        .query('SELECT id FROM webhook_endpoints WHERE enabled = 1 AND cursor < ? ORDER BY id')
        .all(last.id) as { id: string }[];
      return runNow(
        fanOutAll(
          lagging.map((row) => row.id),
          (id) => fanOutBatchOf(run, id, now, quotas),
        ),
      );
    },
    dueDeliveries(now, limit) {
      // The oldest pending delivery of its resource at its endpoint only, so
      // the events of one resource arrive in order. SQLite has one delivery
      // run at a time (the job's lease), so nothing needs claiming. A delivery
      // whose event was pruned is never due (`pruneDeliveries` fails it).
      const due = db.$client
        .query(
          `SELECT d.id, ev.type, ev.occurred_at AS occurredAt, ev.data
           FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
             JOIN events ev ON ev.id = d.event_id
           WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND e.enabled = 1
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
               AND p.resource = d.resource AND p.status = 'pending' AND p.id < d.id)
           ORDER BY d.id LIMIT ?`,
        )
        .all(now, limit) as { id: number; type: string; occurredAt: number; data: string }[];
      return due.map(({ id, ...event }) => {
        const delivery = db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.id, id))
          .get()!;
        const endpoint = db
          .select()
          .from(webhookEndpoints)
          .where(eq(webhookEndpoints.id, delivery.endpointId))
          .get()!;
        return { delivery, endpoint, body: deliveryBody(event) };
      });
    },
    pruneDeliveries: (cutoff, keptPerEndpoint) =>
      db.transaction(
        () => {
          const client = db.$client;
          let deleted = client
            .query(
              `DELETE FROM webhook_deliveries WHERE status <> 'pending'
                 AND (created_at < ? OR NOT EXISTS (SELECT 1 FROM events WHERE id = event_id))`,
            )
            .run(cutoff).changes;
          client
            .query(
              `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = ?
               WHERE status = 'pending' AND NOT EXISTS (SELECT 1 FROM events WHERE id = event_id)`,
            )
            .run(EVENT_NOT_KEPT);
          const endpoints = client.query('SELECT id FROM webhook_endpoints').all() as {
            id: string;
          }[];
          for (const { id } of endpoints) {
            deleted += client.query(TRIM_FINISHED).run(id, keptPerEndpoint).changes;
          }
          return deleted;
        },
        { behavior: 'immediate' },
      ),
  } satisfies WebhookStore;
}
