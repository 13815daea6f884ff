import type { StoredEvent } from '@/events/feed';
import { type Steps, step } from '@/kernel/steps';
import type { MaybePromise } from '@/rate-limit/store';
import type { Run } from './operations';
import type { NewDelivery, WebhookTables } from './store';

const FAN_OUT_BATCH = 500;

/** The delivery of `event` to `endpointId`; the body is built once, so every attempt sends (and signs) the same bytes. */
const deliveryOf = (endpointId: string, event: StoredEvent, now: number): NewDelivery => ({
  endpointId,
  eventId: event.id,
  eventType: event.type,
  resource: `${event.resourceKind}:${event.resourceId}`,
  body: `{"type":${JSON.stringify(event.type)},"timestamp":"${new Date(event.occurredAt).toISOString()}","data":${event.data}}`,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: new Date(now),
  createdAt: new Date(now),
});

/**
 * One batch of an endpoint's fan-out, in one transaction: queues a delivery
 * of every event after its cursor that it should receive (its owner's, of
 * its types) and moves the cursor past the events read, so an event is
 * queued exactly once, even when the process dies between batches. Null:
 * nothing (more) to queue.
 */
function* fanOutBatch(t: WebhookTables, endpointId: string, now: number): Steps<number | null> {
  // Read again inside the transaction: a PATCH or DELETE may have come between batches.
  const current = yield* step(t.endpoint(endpointId, true));
  if (!current?.enabled) return null;
  const events = yield* step(t.eventsAfter(current.cursor, FAN_OUT_BATCH));
  if (events.length === 0) return null;
  const wanted = events.filter(
    (event) =>
      (current.ownerId === null || event.ownerId === current.ownerId) &&
      (current.types.length === 0 || current.types.includes(event.type)),
  );
  if (wanted.length > 0) {
    yield* step(t.insertDeliveries(wanted.map((event) => deliveryOf(endpointId, event, now))));
  }
  yield* step(t.updateEndpoint(endpointId, { cursor: events.at(-1)!.id }));
  return wanted.length;
}

/** Every lagging endpoint's fan-out, batch after batch; how many deliveries were queued. */
export function* fanOutAll(
  lagging: MaybePromise<string[]>,
  batch: (endpointId: string) => MaybePromise<number | null>,
): Steps<number> {
  let queued = 0;
  for (const endpointId of yield* step(lagging)) {
    for (;;) {
      const added = yield* step(batch(endpointId));
      if (added === null) break;
      queued += added;
    }
  }
  return queued;
}

/** One fan-out batch, for a store's `fanOut`. */
export const fanOutBatchOf = (run: Run, endpointId: string, now: number) =>
  run((t) => fanOutBatch(t, endpointId, now));
