import type { WebhookEndpointRow } from '@/db/schema';
import { cursorOf } from '@/events/cursor';
import type { StoredEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { type Steps, step } from '@/kernel/steps';
import { BACKLOG_GIVEN_UP, disableEndpoint } from './deliveries';
import type { Run } from './operations';
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
 * nothing (more) to queue. Queuing trims the endpoint's finished deliveries
 * to the newest `finishedDeliveriesKeptPerEndpoint`.
 *
 * A batch that would take the endpoint's pending deliveries past
 * `pendingDeliveriesPerEndpoint` queues nothing: the endpoint is disabled and
 * its pending deliveries given up, so a receiver that is down or too slow
 * never makes the service store more than the quota. Enabling it again
 * starts it afresh at the current event; the reason names the cursor to
 * read what it missed from the feed.
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
  if (wanted.length > 0) {
    const pending = yield* step(t.pendingCount(endpointId));
    if (pending + wanted.length > quotas.pendingDeliveriesPerEndpoint) {
      yield* backlogFull(t, current, wanted[0]!.id, now, quotas);
      return 0;
    }
    yield* step(t.insertDeliveries(wanted.map((event) => deliveryOf(endpointId, event, now))));
    yield* step(t.trimFinished(endpointId, quotas.finishedDeliveriesKeptPerEndpoint));
  }
  yield* step(t.updateEndpoint(endpointId, { cursor: events.at(-1)!.id }));
  return wanted.length;
}

/** Gives up an endpoint's pending deliveries and disables it; `next`: the first event not queued. */
function* backlogFull(
  t: WebhookTables,
  endpoint: WebhookEndpointRow,
  next: number,
  now: number,
  quotas: WebhookQuotas,
): Steps<void> {
  const oldest = yield* step(t.giveUpPending(endpoint.id, BACKLOG_GIVEN_UP));
  yield* step(t.trimFinished(endpoint.id, quotas.finishedDeliveriesKeptPerEndpoint));
  const missed = Math.min(oldest ?? next, next) - 1;
  yield* disableEndpoint(t, endpoint, now, {
    cause: 'backlog',
    reason: `Disabled at ${new Date(now).toISOString()}: more than ${quotas.pendingDeliveriesPerEndpoint} deliveries would have been waiting to be sent, the most an endpoint may have; the pending ones were given up and no later event was queued (read them from the feed with after=${cursorOf(missed)})`,
  });
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
