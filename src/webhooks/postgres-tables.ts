import { and, asc, desc, eq, gt, lt, min, ne, or, sql } from 'drizzle-orm';
import { auditRowOf } from '@/audit/record';
import { changedRows, type PgTx } from '@/db/pg/client';
import { auditEvents, events, webhookDeliveries, webhookEndpoints } from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import type { WebhookTables } from '@/webhooks/tables';
import { claimable } from './queue-rules';

/** The advisory lock class of one owner's endpoint creates (the key is the owner's hash). */
const OWNER_LOCK_CLASS = 0x77686b;

/** 11 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 1000;

/** An endpoint's finished deliveries older than its newest `keep` finished ones. */
const trimFinished = (endpointId: string, keep: number) =>
  sql`DELETE FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND status <> 'pending'
    AND id < coalesce((SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpointId}
      AND status <> 'pending' ORDER BY id DESC LIMIT 1 OFFSET ${keep - 1}), 0)`;

/**
 * Sets an endpoint's `next_attempt_at` to the due time of its next
 * delivery, due or not: the first entry of the partial index
 * `webhook_deliveries_next`, the one index whose predicate the query
 * repeats.
 */
export const refreshDue = (endpointId: string) =>
  sql`UPDATE webhook_endpoints SET next_attempt_at = (
      SELECT d.next_attempt_at FROM webhook_deliveries d
      WHERE d.endpoint_id = ${endpointId} AND d.status = 'pending' AND NOT d.blocked
      ORDER BY d.next_attempt_at LIMIT 1)
    WHERE id = ${endpointId}`;

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

/** Whether a delivery's event is still kept. */
const eventKept = sql`EXISTS (SELECT 1 FROM events WHERE events.id = webhook_deliveries.event_id)`;

/** The webhook queries inside one PostgreSQL transaction (READ COMMITTED). */
export const postgresWebhookTables = (tx: PgTx): WebhookTables => ({
  async endpoint(id, forUpdate) {
    if (holdsNul(id)) return undefined;
    const query = tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    const [row] = await (forUpdate ? query.for('update') : query);
    return row;
  },
  async lockOwner(owner) {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${OWNER_LOCK_CLASS}, hashtext(${owner}))`);
  },
  async countOwned(owner) {
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
  async pendingResources(endpointId, resources) {
    if (resources.length === 0) return new Set();
    // One probe of `webhook_deliveries_resource` per resource, however many are pending.
    const rows = await tx.execute<{ resource: string }>(
      sql`SELECT r.resource FROM unnest(ARRAY[${sql.join(
        resources.map((resource) => sql`${resource}`),
        sql`, `,
      )}]::text[]) AS r(resource)
        WHERE EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = ${endpointId}
          AND d.resource = r.resource AND d.status = 'pending')`,
    );
    return new Set([...rows].map((row) => row.resource));
  },
  async firstPending(endpointId, resource) {
    const [row] = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpointId),
          eq(webhookDeliveries.resource, resource),
          eq(webhookDeliveries.status, 'pending'),
        ),
      )
      .orderBy(asc(webhookDeliveries.id))
      .limit(1);
    return row?.id ?? null;
  },
  async refreshDue(endpointId) {
    await tx.execute(refreshDue(endpointId));
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
  trimFinished: async (endpointId, keep) =>
    changedRows(await tx.execute(trimFinished(endpointId, keep))),
  async claimEndpoint(endpointId, now, until) {
    if (holdsNul(endpointId)) return undefined;
    const [endpoint] = await tx
      .update(webhookEndpoints)
      .set({ deliveryClaimedUntil: new Date(until) })
      .where(claimable(webhookEndpoints, endpointId, now))
      .returning();
    return endpoint;
  },
  async nextDelivery(endpointId, now) {
    // bigint columns may come back as text.
    const [next] = await tx.execute<{
      id: number | string;
      type: string;
      occurredAt: number | string;
      data: string;
    }>(nextDelivery(endpointId, now));
    if (!next) return null;
    const { id, type, occurredAt, data } = next;
    return { id: Number(id), type, occurredAt: Number(occurredAt), data };
  },
  async deleteFinished(cutoff) {
    return changedRows(
      await tx
        .delete(webhookDeliveries)
        .where(
          and(
            ne(webhookDeliveries.status, 'pending'),
            or(lt(webhookDeliveries.createdAt, new Date(cutoff)), sql`NOT ${eventKept}`),
          ),
        ),
    );
  },
  giveUpOrphaned: async (error) =>
    tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, error })
      .where(and(eq(webhookDeliveries.status, 'pending'), sql`NOT ${eventKept}`))
      .returning({
        endpointId: webhookDeliveries.endpointId,
        resource: webhookDeliveries.resource,
        blocked: webhookDeliveries.blocked,
      }),
  giveUpDueBefore: async (before, error) =>
    tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, error })
      .where(
        and(
          eq(webhookDeliveries.status, 'pending'),
          lt(webhookDeliveries.nextAttemptAt, new Date(before)),
        ),
      )
      .returning({
        endpointId: webhookDeliveries.endpointId,
        resource: webhookDeliveries.resource,
        blocked: webhookDeliveries.blocked,
      }),
  async endpointIds() {
    const rows = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints);
    return rows.map((row) => row.id);
  },
  async recordAudit(context, entry) {
    await tx.insert(auditEvents).values(auditRowOf(context, entry));
  },
  async endpointsOf(owner) {
    if (owner !== null && holdsNul(owner)) return [];
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
