import { and, asc, desc, eq, gt, min, sql } from 'drizzle-orm';
import { auditRowOf } from '@/audit/record';
import type { PgTx } from '@/db/pg/client';
import { auditEvents, events, webhookDeliveries, webhookEndpoints } from '@/db/pg/schema';
import type { WebhookTables } from './store';

/** The advisory lock class of one owner's endpoint creates (the key is the owner's hash). */
const OWNER_LOCK_CLASS = 0x77686b;

/** 11 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 1000;

/** PostgreSQL text cannot hold NUL: no stored id has one, and binding it would fail. */
export const impossible = (id: string) => id.includes('\u0000');

/** An endpoint's finished deliveries older than its newest `keep` finished ones. */
export const trimFinished = (endpointId: string, keep: number) =>
  sql`DELETE FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND status <> 'pending'
    AND id < coalesce((SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpointId}
      AND status <> 'pending' ORDER BY id DESC LIMIT 1 OFFSET ${keep - 1}), 0)`;

/** Whether a delivery's event is still kept. */
export const eventKept = sql`EXISTS (SELECT 1 FROM events WHERE events.id = webhook_deliveries.event_id)`;

/** The webhook queries inside one PostgreSQL transaction (READ COMMITTED). */
export const postgresWebhookTables = (tx: PgTx): WebhookTables => ({
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
