import { desc, eq, sql } from 'drizzle-orm';
import { recordAudit } from '@/audit/sqlite-store';
import type { Db, Tx } from '@/db/client';
import { events, webhookDeliveries, webhookEndpoints } from '@/db/schema';
import type { StoredEvent } from '@/events/store';
import { runNow, type Steps } from '@/kernel/steps';
import { deliveryBody, EVENT_NOT_KEPT } from './deliveries';
import { fanOutAll, fanOutBatchOf } from './fan-out';
import { webhookOperations } from './operations';
import type { DueEndpoint, WebhookStore, WebhookTables } from './store';
import { type SummaryRow, summaryQuery } from './summary';

/**
 * A delivery that may go: its resource has no earlier pending delivery at
 * its endpoint, so the events of one resource go in order. An endpoint's
 * next delivery is the oldest due one of those.
 */
const FIRST_OF_RESOURCE = `NOT EXISTS (SELECT 1 FROM webhook_deliveries p
  WHERE p.endpoint_id = d.endpoint_id AND p.resource = d.resource AND p.status = 'pending'
    AND p.id < d.id)`;
/** With its event's fields, the body's source; a delivery whose event was pruned is never due (`pruneDeliveries` fails it). */
const NEXT_DELIVERY = `SELECT d.id, ev.type, ev.occurred_at AS occurredAt, ev.data
  FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
  WHERE d.endpoint_id = ?1 AND d.status = 'pending' AND d.next_attempt_at <= ?2
    AND ${FIRST_OF_RESOURCE}
  ORDER BY d.id LIMIT 1`;

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
  let claimsCleared = false;
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
    dueEndpoints(now, limit) {
      if (!claimsCleared) {
        // One process delivers from a SQLite file, and it has claimed nothing
        // yet: a claim left in the file is a crashed process's, its attempt
        // to be repeated now rather than when the claim lapses.
        db.$client.run(
          'UPDATE webhook_endpoints SET delivery_claimed_until = NULL WHERE delivery_claimed_until IS NOT NULL',
        );
        claimsCleared = true;
      }
      return db.$client
        .query(
          `SELECT e.id AS endpointId, e.owner_id AS ownerId
           FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
             JOIN events ev ON ev.id = d.event_id
           WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND e.enabled = 1
             AND (e.delivery_claimed_until IS NULL OR e.delivery_claimed_until <= ?1)
             AND ${FIRST_OF_RESOURCE}
           GROUP BY e.id ORDER BY min(d.next_attempt_at), e.id LIMIT ?2`,
        )
        .all(now, limit) as DueEndpoint[];
    },
    claimDelivery: (endpointId, now, until) =>
      db.transaction(
        () => {
          // The claim first, then the delivery read under it: what the last
          // claimer recorded is seen, so nothing is sent twice.
          const claimed = db.$client
            .query(
              `UPDATE webhook_endpoints SET delivery_claimed_until = ?3
               WHERE id = ?1 AND enabled = 1
                 AND (delivery_claimed_until IS NULL OR delivery_claimed_until <= ?2)`,
            )
            .run(endpointId, now, until).changes;
          if (claimed === 0) return null;
          const next = db.$client.query(NEXT_DELIVERY).get(endpointId, now) as
            | ({ id: number } & Pick<StoredEvent, 'type' | 'occurredAt' | 'data'>)
            | null;
          if (!next) {
            db.$client
              .query('UPDATE webhook_endpoints SET delivery_claimed_until = NULL WHERE id = ?')
              .run(endpointId);
            return null;
          }
          return {
            delivery: db
              .select()
              .from(webhookDeliveries)
              .where(eq(webhookDeliveries.id, next.id))
              .get()!,
            endpoint: db
              .select()
              .from(webhookEndpoints)
              .where(eq(webhookEndpoints.id, endpointId))
              .get()!,
            body: deliveryBody(next),
          };
        },
        { behavior: 'immediate' },
      ),
    releaseEndpoint(endpointId, until) {
      db.$client
        .query(
          `UPDATE webhook_endpoints SET delivery_claimed_until = NULL
           WHERE id = ? AND delivery_claimed_until = ?`,
        )
        .run(endpointId, until);
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
    summarize: (since) => db.all<SummaryRow>(summaryQuery(since)),
  } satisfies WebhookStore;
}
