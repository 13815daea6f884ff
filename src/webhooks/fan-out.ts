import { cursorOf } from '@/events/cursor';
import type { StoredEvent } from '@/events/feed';
import { type Steps, step } from '@/kernel/steps';
import type { MaybePromise } from '@/rate-limit/store';
import type { Run } from './operations';
import { disableEndpoint } from './operations';
import type { NewDelivery, WebhookQuotas, WebhookTables } from './store';

const FAN_OUT_BATCH = 500;

/** The delivery of `event` to `endpointId`: a reference to the event, whose row the body is built from. */
const deliveryOf = (endpointId: string, event: StoredEvent, now: number): NewDelivery => ({
  endpointId,
  eventId: event.id,
  eventType: event.type,
  resource: `${event.resourceKind}:${event.resourceId}`,
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
 *
 * Past `pendingDeliveriesPerEndpoint` nothing more is queued: the endpoint
 * is disabled, its cursor left after the last event queued, so that what a
 * dead receiver makes the service store stays bounded. Queuing trims the
 * endpoint's finished deliveries to the newest `finishedDeliveriesKeptPerEndpoint`.
 */
function* fanOutBatch(
  t: WebhookTables,
  endpointId: string,
  now: number,
  quotas: WebhookQuotas,
): Steps<number | null> {
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
  const room =
    wanted.length === 0
      ? 0
      : quotas.pendingDeliveriesPerEndpoint - (yield* step(t.pendingCount(endpointId)));
  const queued = wanted.slice(0, Math.max(room, 0));
  if (queued.length > 0) {
    yield* step(t.insertDeliveries(queued.map((event) => deliveryOf(endpointId, event, now))));
    yield* step(t.trimFinished(endpointId, quotas.finishedDeliveriesKeptPerEndpoint));
  }
  const first = wanted[queued.length];
  if (first === undefined) {
    yield* step(t.updateEndpoint(endpointId, { cursor: events.at(-1)!.id }));
    return queued.length;
  }
  // The backlog is full: the events from `first` on are not queued.
  const cursor = events[events.indexOf(first) - 1]?.id ?? current.cursor;
  yield* disableEndpoint(t, current, now, {
    cause: 'backlog',
    reason: `Disabled at ${new Date(now).toISOString()}: ${quotas.pendingDeliveriesPerEndpoint} deliveries were waiting to be sent, the most an endpoint may have; the events after ${cursorOf(cursor)} were not queued`,
    change: { cursor },
  });
  return queued.length;
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
export const fanOutBatchOf = (run: Run, endpointId: string, now: number, quotas: WebhookQuotas) =>
  run((t) => fanOutBatch(t, endpointId, now, quotas));
