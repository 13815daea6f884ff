import { and, desc, eq } from 'drizzle-orm';
import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import {
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
  webhookDeliveries,
  webhookEndpoints,
} from '@/db/schema';
import { cursorOf } from '@/events/cursor';
import type { EventType } from '@/events/schemas';
import { fail } from '@/kernel/errors';
import { findEndpoint } from './endpoints';
import type { Delivery } from './schemas';

/** Waits after the 1st, 2nd, 3rd and 4th failed attempt; hourly after that. */
export const RETRY_DELAYS_MS = [30_000, 60_000, 120_000, 300_000] as const;
const HOUR_MS = 60 * 60 * 1000;
/** A delivery is given up, and an endpoint failing all along disabled, after this long. */
export const GIVE_UP_MS = 24 * HOUR_MS;

export const retryDelay = (attempts: number): number => RETRY_DELAYS_MS[attempts - 1] ?? HOUR_MS;

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const toDelivery = (row: WebhookDeliveryRow): Delivery => ({
  id: String(row.id),
  eventId: cursorOf(row.eventId),
  eventType: row.eventType as EventType,
  status: row.status,
  attempts: row.attempts,
  responseStatus: row.responseStatus,
  durationMs: row.durationMs,
  error: row.error,
  lastAttemptAt: iso(row.lastAttemptAt),
  nextAttemptAt: iso(row.nextAttemptAt),
  createdAt: row.createdAt.toISOString(),
});

export interface DueDelivery {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
}

/**
 * Deliveries to attempt now: pending, due, of an enabled endpoint, and the
 * oldest pending one of their resource at that endpoint, so the events of
 * one resource arrive in order (a later one waits while an earlier retries).
 */
export function dueDeliveries(db: Db, now: number, limit: number): DueDelivery[] {
  const ids = db.$client
    .query(
      `SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND e.enabled = 1
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
           AND p.resource = d.resource AND p.status = 'pending' AND p.id < d.id)
       ORDER BY d.id LIMIT ?`,
    )
    .all(now, limit) as { id: number }[];
  return ids.map(({ id }) => {
    const delivery = db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get()!;
    const endpoint = db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, delivery.endpointId))
      .get()!;
    return { delivery, endpoint };
  });
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Records one attempt. A failure is retried on the schedule (30 s, 60 s,
 * 2 min, 5 min, then hourly, the last retry 24 hours after the first
 * attempt), then given up; an endpoint whose every attempt failed for 24
 * hours is disabled, with the reason shown to its owner.
 */
export function recordAttempt(db: Db, id: number, outcome: AttemptOutcome, now: number): void {
  db.transaction(
    (tx) => {
      const delivery = tx
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.id, id))
        .get();
      if (!delivery) return; // The endpoint was deleted meanwhile.
      const attempts = delivery.attempts + 1;
      const first = delivery.firstAttemptAt?.getTime() ?? now;
      // The last retry is at 24 hours exactly, then the delivery is given up.
      const deadline = first + GIVE_UP_MS;
      const next = Math.min(now + retryDelay(attempts), deadline);
      const retry = !outcome.ok && now < deadline;
      tx.update(webhookDeliveries)
        .set({
          status: outcome.ok ? 'succeeded' : retry ? 'pending' : 'failed',
          attempts,
          firstAttemptAt: new Date(first),
          lastAttemptAt: new Date(now),
          nextAttemptAt: retry ? new Date(next) : null,
          responseStatus: outcome.responseStatus,
          durationMs: outcome.durationMs,
          error: outcome.error,
        })
        .where(eq(webhookDeliveries.id, id))
        .run();
      const endpoint = tx
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, delivery.endpointId))
        .get()!;
      if (outcome.ok) {
        if (endpoint.failingSince) {
          tx.update(webhookEndpoints)
            .set({ failingSince: null })
            .where(eq(webhookEndpoints.id, endpoint.id))
            .run();
        }
        return;
      }
      const since = endpoint.failingSince?.getTime() ?? now;
      const disable = endpoint.enabled && now - since >= GIVE_UP_MS;
      tx.update(webhookEndpoints)
        .set({
          failingSince: new Date(since),
          ...(disable
            ? {
                enabled: false,
                disabledReason: `Disabled at ${new Date(now).toISOString()}: every delivery attempt failed since ${new Date(since).toISOString()}; last: ${outcome.error}`,
                updatedAt: new Date(now),
              }
            : {}),
        })
        .where(eq(webhookEndpoints.id, endpoint.id))
        .run();
    },
    { behavior: 'immediate' },
  );
}

/** Finished deliveries older than `cutoff` (the events' retention); pending ones stay. */
export function pruneDeliveries(db: Db, cutoff: number): number {
  return db.$client
    .query("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?")
    .run(cutoff).changes;
}

const MAX_LISTED = 100;

/** GET …/{id}/deliveries: the newest 100, newest first. */
export function listDeliveries(db: Db, caller: Caller, endpointId: string): Delivery[] {
  findEndpoint(db, caller, endpointId);
  return db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(MAX_LISTED)
    .all()
    .map(toDelivery);
}

/**
 * POST …/deliveries/{deliveryId}/redeliver: due now again, with a new 24-hour
 * window of retries (attempts keep counting). Same `webhook-id`: a receiver
 * that saw it already can tell.
 */
export function redeliver(
  db: Db,
  caller: Caller,
  endpointId: string,
  deliveryId: number,
  now: number,
): Delivery {
  return db.transaction(
    (tx) => {
      findEndpoint(tx, caller, endpointId);
      const match = and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpointId),
      );
      const found = tx.select().from(webhookDeliveries).where(match).get();
      if (!found) throw fail('webhook.delivery_not_found');
      const row = tx
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: new Date(now), firstAttemptAt: null })
        .where(match)
        .returning()
        .get();
      return toDelivery(row);
    },
    { behavior: 'immediate' },
  );
}
