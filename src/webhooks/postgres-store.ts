import type { SQL } from 'bun';
import { and, asc, eq, exists, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { changedRows, type PgTx, pgDatabase } from '@/db/pg/client';
import { events, webhookDeliveries, webhookEndpoints } from '@/db/pg/schema';
import { runLater, type Steps } from '@/kernel/steps';
import { deliveryBody, EVENT_NOT_KEPT } from './deliveries';
import { fanOutAll, fanOutBatchOf } from './fan-out';
import { webhookOperations } from './operations';
import { eventKept, impossible, postgresWebhookTables, trimFinished } from './postgres-tables';
import type { WebhookStore, WebhookTables } from './store';
import { type SummaryRow, summaryQuery } from './summary';

const earlier = alias(webhookDeliveries, 'p');

/**
 * A delivery that may go: its resource has no earlier pending delivery at
 * its endpoint, so the events of one resource go in order.
 */
const firstOfResource = (query: Pick<PgTx, 'select'>) =>
  sql`NOT ${exists(
    query
      .select({ one: sql`1` })
      .from(earlier)
      .where(
        and(
          eq(earlier.endpointId, webhookDeliveries.endpointId),
          eq(earlier.resource, webhookDeliveries.resource),
          eq(earlier.status, 'pending'),
          lt(earlier.id, webhookDeliveries.id),
        ),
      ),
  )}`;

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
    async dueEndpoints(now, limit) {
      return db
        .select({ endpointId: webhookEndpoints.id, ownerId: webhookEndpoints.ownerId })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
        .where(
          and(
            eq(webhookDeliveries.status, 'pending'),
            lte(webhookDeliveries.nextAttemptAt, new Date(now)),
            eq(webhookEndpoints.enabled, true),
            claimFree(now),
            firstOfResource(db),
          ),
        )
        .groupBy(webhookEndpoints.id)
        .orderBy(sql`min(${webhookDeliveries.nextAttemptAt})`, asc(webhookEndpoints.id))
        .limit(limit);
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
        // A delivery whose event was pruned is never due (`pruneDeliveries` fails it).
        const [next] = await tx
          .select({
            delivery: webhookDeliveries,
            type: events.type,
            occurredAt: events.occurredAt,
            data: events.data,
          })
          .from(webhookDeliveries)
          .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
          .where(
            and(
              eq(webhookDeliveries.endpointId, endpointId),
              eq(webhookDeliveries.status, 'pending'),
              lte(webhookDeliveries.nextAttemptAt, new Date(now)),
              firstOfResource(tx),
            ),
          )
          .orderBy(asc(webhookDeliveries.id))
          .limit(1);
        if (!next) {
          await tx
            .update(webhookEndpoints)
            .set({ deliveryClaimedUntil: null })
            .where(eq(webhookEndpoints.id, endpointId));
          return null;
        }
        const { delivery, ...event } = next;
        return { delivery, endpoint, body: deliveryBody(event) };
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
        await tx
          .update(webhookDeliveries)
          .set({ status: 'failed', nextAttemptAt: null, error: EVENT_NOT_KEPT })
          .where(and(eq(webhookDeliveries.status, 'pending'), sql`NOT ${eventKept}`));
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
