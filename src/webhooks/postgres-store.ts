import type { SQL } from 'bun';
import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { pgDatabase } from '@/db/pg/client';
import { events, webhookEndpoints } from '@/db/pg/schema';
import { holdsNul } from '@/kernel/nul';
import { runLater, type Steps } from '@/kernel/steps';
import type { WebhookTables } from '@/webhooks/tables';
import { webhookOperations } from './operations';
import { postgresWebhookTables } from './postgres-tables';
import { queueRules } from './queue-rules';
import type { DueEndpoint, WebhookStore } from './store';
import { type SummaryRow, summaryQuery } from './summary';

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
    ...queueRules(run, runLater, {
      async laggingEndpoints() {
        const rows = await db
          .select({ id: webhookEndpoints.id })
          .from(webhookEndpoints)
          .where(
            and(
              eq(webhookEndpoints.enabled, true),
              lt(webhookEndpoints.cursor, sql`(SELECT coalesce(max(${events.id}), 0) FROM events)`),
            ),
          )
          .orderBy(asc(webhookEndpoints.id));
        return rows.map((row) => row.id);
      },
    }),
    async hasEnabledEndpoint() {
      const found = await db
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.enabled, true))
        .limit(1);
      return found.length > 0;
    },
    async dueEndpoints(now, limit, slow) {
      // drizzle's bun-sql types its rows as records; the query's columns are DueEndpoint's.
      return [...(await db.execute(dueEndpoints(now, limit, slow)))] as DueEndpoint[];
    },
    async releaseEndpoint(endpointId, until) {
      if (holdsNul(endpointId)) return;
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
    async summarize(since) {
      // drizzle's bun-sql types its rows as records; the query's columns are SummaryRow's.
      return [...(await db.execute(summaryQuery(since)))] as SummaryRow[];
    },
  };
}
