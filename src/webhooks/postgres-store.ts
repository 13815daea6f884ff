import type { SQL } from 'bun';
import { and, asc, desc, eq, exists, gt, isNull, lt, lte, min, ne, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { auditRowOf } from '@/audit/record';
import { changedRows, type PgTx, pgDatabase } from '@/db/pg/client';
import { auditEvents, events, webhookDeliveries, webhookEndpoints } from '@/db/pg/schema';
import { runLater, type Steps } from '@/kernel/steps';
import { deliveryBody, EVENT_NOT_KEPT } from './deliveries';
import { fanOutAll, fanOutBatchOf } from './fan-out';
import { webhookOperations } from './operations';
import type { WebhookStore, WebhookTables } from './store';
import { type SummaryRow, summaryQuery } from './summary';

/** The advisory lock class of one owner's endpoint creates (the key is the owner's hash). */
const OWNER_LOCK_CLASS = 0x77686b;

/** 11 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 1000;

/** PostgreSQL text cannot hold NUL: no stored id has one, and binding it would fail. */
const impossible = (id: string) => id.includes('\u0000');

/** An endpoint's finished deliveries older than its newest `keep` finished ones. */
const trimFinished = (endpointId: string, keep: number) =>
  sql`DELETE FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND status <> 'pending'
    AND id < coalesce((SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpointId}
      AND status <> 'pending' ORDER BY id DESC LIMIT 1 OFFSET ${keep - 1}), 0)`;

/** Whether a delivery's event is still kept. */
const eventKept = sql`EXISTS (SELECT 1 FROM events WHERE events.id = webhook_deliveries.event_id)`;

/** The webhook queries inside one PostgreSQL transaction (READ COMMITTED). */
const tablesOf = (tx: PgTx): WebhookTables => ({
  async endpoint(id, forUpdate) {
    if (impossible(id)) return undefined;
    const query = tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    const [row] = await (forUpdate ? query.for('update') : query);
    return row;
  },
  async countOwned(owner) {
    // Creates of one owner run one after the other, so two at once cannot both pass the limit.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${OWNER_LOCK_CLASS}, hashtext(${owner}))`);
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.ownerId, owner));
    return row?.n ?? 0;
  },
  async lastEventId() {
    // Appends commit in id order (`appendEventRows`), so the highest id committed bounds them all.
    const [row] = await tx
      .select({ id: sql<number>`coalesce(max(${events.id}), 0)::bigint` })
      .from(events);
    return Number(row?.id ?? 0);
  },
  async insertEndpoint(values) {
    const [row] = await tx.insert(webhookEndpoints).values(values).returning();
    return row!;
  },
  async updateEndpoint(id, change) {
    const [row] = await tx
      .update(webhookEndpoints)
      .set(change)
      .where(eq(webhookEndpoints.id, id))
      .returning();
    return row!;
  },
  async deleteEndpoint(id) {
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  },
  async delivery(id) {
    const [row] = await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    return row;
  },
  async updateDelivery(id, change) {
    const [row] = await tx
      .update(webhookDeliveries)
      .set(change)
      .where(eq(webhookDeliveries.id, id))
      .returning();
    return row!;
  },
  // async: a drizzle query is a thenable, not a Promise, and callers tell them apart.
  eventsAfter: async (after, limit) =>
    tx.select().from(events).where(gt(events.id, after)).orderBy(asc(events.id)).limit(limit),
  async insertDeliveries(rows) {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await tx.insert(webhookDeliveries).values(rows.slice(i, i + CHUNK));
    }
  },
  async pendingCount(endpointId) {
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(
        and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')),
      );
    return row?.n ?? 0;
  },
  async giveUpPending(endpointId, error) {
    const pending = and(
      eq(webhookDeliveries.endpointId, endpointId),
      eq(webhookDeliveries.status, 'pending'),
    );
    const [oldest] = await tx
      .select({ id: min(webhookDeliveries.eventId) })
      .from(webhookDeliveries)
      .where(pending);
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, error })
      .where(pending);
    return oldest?.id ?? null;
  },
  async trimFinished(endpointId, keep) {
    await tx.execute(trimFinished(endpointId, keep));
  },
  async recordAudit(context, entry) {
    await tx.insert(auditEvents).values(auditRowOf(context, entry));
  },
  async endpointsOf(owner) {
    if (owner !== null && impossible(owner)) return [];
    return tx
      .select()
      .from(webhookEndpoints)
      .where(owner === null ? undefined : eq(webhookEndpoints.ownerId, owner))
      .orderBy(asc(webhookEndpoints.id));
  },
  recentDeliveries: async (endpointId, limit) =>
    tx
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId))
      .orderBy(desc(webhookDeliveries.id))
      .limit(limit),
});

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
    db.transaction((tx) => runLater(operation(tablesOf(tx))));
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
