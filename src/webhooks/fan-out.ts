import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';

interface EventRecord {
  id: number;
  type: string;
  occurred_at: number;
  resource_kind: string;
  resource_id: string;
  owner_id: string | null;
  data: string;
}

const FAN_OUT_BATCH = 500;

/**
 * Queues a delivery of every event after each enabled endpoint's cursor that
 * it should receive (its owner's, of its types), and moves the cursor past
 * the events read, in one transaction per batch: an event is queued exactly
 * once, even when the process dies between batches. The body is built
 * here once, so every attempt sends (and signs) the same bytes.
 */
export function fanOut(db: Db, now: number): number {
  let queued = 0;
  const last = db.$client.query('SELECT coalesce(max(id), 0) AS id FROM events').get() as {
    id: number;
  };
  // Endpoints already at the last event need no write transaction (the idle case).
  const endpoints = db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.enabled, true), lt(webhookEndpoints.cursor, last.id)))
    .all();
  for (const endpoint of endpoints) {
    for (;;) {
      const added = db.transaction(
        (tx) => {
          // Read again inside the transaction: a PATCH or DELETE may have come between batches.
          const current = tx
            .select()
            .from(webhookEndpoints)
            .where(eq(webhookEndpoints.id, endpoint.id))
            .get();
          if (!current?.enabled) return null;
          // The same connection as `tx`: read inside its transaction.
          const events = db.$client
            .query(
              `SELECT id, type, occurred_at, resource_kind, resource_id, owner_id, data FROM events
               WHERE id > ? ORDER BY id LIMIT ?`,
            )
            .all(current.cursor, FAN_OUT_BATCH) as EventRecord[];
          if (events.length === 0) return null;
          const wanted = events.filter(
            (event) =>
              (current.ownerId === null || event.owner_id === current.ownerId) &&
              (current.types.length === 0 || current.types.includes(event.type)),
          );
          if (wanted.length > 0) {
            tx.insert(webhookDeliveries)
              .values(
                wanted.map((event) => ({
                  endpointId: endpoint.id,
                  eventId: event.id,
                  eventType: event.type,
                  resource: `${event.resource_kind}:${event.resource_id}`,
                  body: `{"type":${JSON.stringify(event.type)},"timestamp":"${new Date(event.occurred_at).toISOString()}","data":${event.data}}`,
                  status: 'pending' as const,
                  attempts: 0,
                  nextAttemptAt: new Date(now),
                  createdAt: new Date(now),
                })),
              )
              .run();
          }
          tx.update(webhookEndpoints)
            .set({ cursor: events.at(-1)!.id })
            .where(eq(webhookEndpoints.id, endpoint.id))
            .run();
          return wanted.length;
        },
        { behavior: 'immediate' },
      );
      if (added === null) break;
      queued += added;
    }
  }
  return queued;
}
