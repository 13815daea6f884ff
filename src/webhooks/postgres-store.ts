import type { SQL } from 'bun';
import { and, asc, eq, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import { changedRows, pgDatabase } from '@/db/pg/client';
import { events, webhookDeliveries, webhookEndpoints } from '@/db/pg/schema';
import { runLater, type Steps } from '@/kernel/steps';
import { deliveryBody, EVENT_NOT_KEPT, settleGivenUp } from './deliveries';
import { fanOutAll, fanOutBatchOf } from './fan-out';
import { webhookOperations } from './operations';
import { eventKept, impossible, postgresWebhookTables, trimFinished } from './postgres-tables';
import type { DueEndpoint, WebhookStore, WebhookTables } from './store';
import { type SummaryRow, summaryQuery } from './summary';

/**
 * An endpoint's next delivery with its event's fields: of its due pending
 * deliveries that are not blocked, the one due longest ago, then the
 * oldest. The query repeats the predicate of `webhook_deliveries_next`
 * and orders by its columns, so that index answers it with its first
 * entry; no other index gives that order.
 */
export const nextDelivery = (endpointId: string, now: number) =>
  sql`SELECT d.id, ev.type, ev.occurred_at AS "occurredAt", ev.data
    FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
    WHERE d.endpoint_id = ${endpointId} AND d.status = 'pending' AND NOT d.blocked
      AND d.next_attempt_at <= ${now}
    ORDER BY d.next_attempt_at, d.id LIMIT 1`;

/**
 * Enabled endpoints of one lane whose next delivery is due and that no
 * attempt holds, the longest waiting first: a range of
 * `webhook_endpoints_due`, endpoints only, never their deliveries.
 */
export const dueEndpoints = (now: number, limit: number, slow: boolean) =>
  sql`SELECT id AS "endpointId", owner_id AS "ownerId", slow FROM webhook_endpoints
    WHERE enabled = true AND slow = ${slow} AND next_attempt_at <= ${now}
      AND (delivery_claimed_until IS NULL OR delivery_claimed_until <= ${now})
    ORDER BY next_attempt_at LIMIT ${limit}`;

/** No attempt to the endpoint is in flight: its claim is free or has lapsed. */
const claimFree = (now: number) =>
  or(
    isNull(webhookEndpoints.deliveryClaimedUntil),
    lte(webhookEndpoints.deliveryClaimedUntil, new Date(now)),
  );

/**
 * Webhooks on PostgreSQL: the same operations, results and errors as
 * `sqliteWebhookStore`, every one a promise. Several instances may fan
 * out and deliver at once: an endpoint's fan-out batch holds its row
 * (`FOR UPDATE`), so an event is queued once; an endpoint is claimed for
 * one attempt at a time (`delivery_claimed_until`) by one instance only.
 * The caller owns `client`.
 */
export function postgresWebhookStore(client: SQL): WebhookStore {
  const db = pgDatabase(client);
  const run = <T>(operation: (t: WebhookTables) => Steps<T>): Promise<T> =>
    db.transaction((tx) => runLater(operation(postgresWebhookTables(tx))));
  return {
    ...webhookOperations(run),
    async hasEnabledEndpoint() {
      const found = await db
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.enabled, true))
        .limit(1);
      return found.length > 0;
    },
    async fanOut(now, quotas) {
      const [last] = await db
        .select({ id: sql<number>`coalesce(max(${events.id}), 0)::bigint` })
        .from(events);
      // Endpoints already at the last event need no write transaction (the idle case).
      const lagging = await db
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.enabled, true),
            lt(webhookEndpoints.cursor, Number(last?.id ?? 0)),
          ),
        )
        .orderBy(asc(webhookEndpoints.id));
      return runLater(
        fanOutAll(
          lagging.map((row) => row.id),
          (id) => fanOutBatchOf(run, id, now, quotas),
        ),
      );
    },
    async dueEndpoints(now, limit, slow) {
      // drizzle's bun-sql types its rows as records; the query's columns are DueEndpoint's.
      return [...(await db.execute(dueEndpoints(now, limit, slow)))] as DueEndpoint[];
    },
    claimDelivery(endpointId, now, until) {
      if (impossible(endpointId)) return Promise.resolve(null);
      return db.transaction(async (tx) => {
        // The claim first: a second instance's UPDATE waits for this one's
        // commit and then finds the endpoint claimed. The delivery is read
        // under the claim, so what the previous claimer recorded is seen.
        const [endpoint] = await tx
          .update(webhookEndpoints)
          .set({ deliveryClaimedUntil: new Date(until) })
          .where(
            and(
              eq(webhookEndpoints.id, endpointId),
              eq(webhookEndpoints.enabled, true),
              claimFree(now),
            ),
          )
          .returning();
        if (!endpoint) return null;
        // Its first entry of `webhook_deliveries_next` that is due, the index
        // whose predicate the query repeats. A delivery whose event was
        // pruned is never sent (`pruneDeliveries` fails it).
        const [next] = await tx.execute<{
          id: number;
          type: string;
          occurredAt: number;
          data: string;
        }>(nextDelivery(endpointId, now));
        if (!next) {
          await tx
            .update(webhookEndpoints)
            .set({ deliveryClaimedUntil: null })
            .where(eq(webhookEndpoints.id, endpointId));
          return null;
        }
        const [delivery] = await tx
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.id, Number(next.id)));
        if (!delivery) return null;
        return {
          delivery,
          endpoint,
          body: deliveryBody({
            type: next.type,
            occurredAt: Number(next.occurredAt),
            data: next.data,
          }),
        };
      });
    },
    async releaseEndpoint(endpointId, until) {
      if (impossible(endpointId)) return;
      await db
        .update(webhookEndpoints)
        .set({ deliveryClaimedUntil: null })
        .where(
          and(
            eq(webhookEndpoints.id, endpointId),
            eq(webhookEndpoints.deliveryClaimedUntil, new Date(until)),
          ),
        );
    },
    pruneDeliveries(cutoff, keptPerEndpoint) {
      return db.transaction(async (tx) => {
        let deleted = changedRows(
          await tx
            .delete(webhookDeliveries)
            .where(
              and(
                ne(webhookDeliveries.status, 'pending'),
                or(lt(webhookDeliveries.createdAt, new Date(cutoff)), sql`NOT ${eventKept}`),
              ),
            ),
        );
        const givenUp = await tx
          .update(webhookDeliveries)
          .set({ status: 'failed', nextAttemptAt: null, error: EVENT_NOT_KEPT })
          .where(and(eq(webhookDeliveries.status, 'pending'), sql`NOT ${eventKept}`))
          .returning({
            endpointId: webhookDeliveries.endpointId,
            resource: webhookDeliveries.resource,
            blocked: webhookDeliveries.blocked,
          });
        await runLater(settleGivenUp(postgresWebhookTables(tx), givenUp));
        const endpoints = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints);
        for (const { id } of endpoints) {
          deleted += changedRows(await tx.execute(trimFinished(id, keptPerEndpoint)));
        }
        return deleted;
      });
    },
    async summarize(since) {
      // drizzle's bun-sql types its rows as records; the query's columns are SummaryRow's.
      return [...(await db.execute(summaryQuery(since)))] as SummaryRow[];
    },
  };
}
