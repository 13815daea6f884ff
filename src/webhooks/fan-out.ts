import type { WebhookEndpointRow } from '@/db/sqlite/schema';
import { cursorOf } from '@/events/cursor';
import type { StoredEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { type Steps, step } from '@/kernel/steps';
import type { WebhookTables } from '@/webhooks/tables';
import { BACKLOG_GIVEN_UP, disableEndpoint } from './deliveries';
import type { Run } from './operations';
import type { EndpointChange, NewDelivery, WebhookQuotas } from './store';

const FAN_OUT_BATCH = 500;

const resourceOf = (event: StoredEvent) => `${event.resourceKind}:${event.resourceId}`;

/**
 * The delivery of `event` to `endpointId`: a reference to the event, whose
 * row the body is built from. `blocked`: an earlier delivery of its
 * resource is pending, and goes first.
 */
const deliveryOf = (
  endpointId: string,
  event: StoredEvent,
  now: number,
  blocked: boolean,
): NewDelivery => ({
  endpointId,
  eventId: event.id,
  eventType: event.type,
  resource: resourceOf(event),
  blocked,
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
 * to the newest `finishedDeliveriesKeptPerEndpoint`, and keeps the
 * endpoint's count of pending deliveries and next due time.
 *
 * A batch that would take the endpoint's pending deliveries past
 * `pendingDeliveriesPerEndpoint` queues nothing: the endpoint is disabled and
 * its pending deliveries given up, so a receiver that is down or too slow
 * never makes the service store more than the quota. One that would take
 * its owner's (every endpoint of one customer) past
 * `pendingDeliveriesPerOwner` first gives up the largest backlog of the
 * owner's endpoints the same way (`makeOwnerRoom`). Enabling it again
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
  const seen = yield* step(t.endpoint(endpointId, false));
  if (!seen?.enabled) return null;
  // The owner first, then the endpoint: the order every path that takes both follows.
  if (seen.ownerId !== null) yield* step(t.lockOwner(seen.ownerId));
  const current = yield* step(t.endpoint(endpointId, true));
  if (!current?.enabled) return null;
  const events = yield* step(t.eventsAfter(current.cursor, FAN_OUT_BATCH));
  if (events.length === 0) return null;
  const wanted = events.filter(
    (event) =>
      (current.ownerId === null || event.ownerId === current.ownerId) &&
      (current.types.length === 0 || current.types.includes(event.type)),
  );
  const change: EndpointChange = { cursor: events.at(-1)!.id };
  if (wanted.length > 0) {
    if (current.pendingDeliveries + wanted.length > quotas.pendingDeliveriesPerEndpoint) {
      yield* backlogFull(t, current, wanted[0]!.id, now, quotas, 'endpoint');
      return 0;
    }
    if (!(yield* makeOwnerRoom(t, current, wanted.length, wanted[0]!.id, now, quotas))) return 0;
    const busy = yield* step(t.pendingResources(endpointId, [...new Set(wanted.map(resourceOf))]));
    const rows = wanted.map((event) => {
      const resource = resourceOf(event);
      const blocked = busy.has(resource);
      busy.add(resource);
      return deliveryOf(endpointId, event, now, blocked);
    });
    yield* step(t.insertDeliveries(rows));
    yield* step(t.trimFinished(endpointId, quotas.finishedDeliveriesKeptPerEndpoint));
    change.pendingDeliveries = current.pendingDeliveries + rows.length;
    // A new delivery that may go is due now: the endpoint is due by then at the latest.
    if (rows.some((row) => !row.blocked)) {
      change.nextAttemptAt = new Date(Math.min(current.nextAttemptAt?.getTime() ?? now, now));
    }
  }
  yield* step(t.updateEndpoint(endpointId, change));
  return wanted.length;
}

/**
 * Before `adding` deliveries to `current`: while its owner's pending
 * deliveries and these would pass `pendingDeliveriesPerOwner`, the owner's
 * endpoint with the most pending is disabled and its backlog given up, as
 * at the per-endpoint quota (the endpoint that holds the backlog, not the
 * one that happened to queue last, pays for it). False: that was `current`,
 * and nothing is queued. Employees' endpoints have no owner quota.
 */
function* makeOwnerRoom(
  t: WebhookTables,
  current: WebhookEndpointRow,
  adding: number,
  next: number,
  now: number,
  quotas: WebhookQuotas,
): Steps<boolean> {
  if (current.ownerId === null) return true;
  for (;;) {
    const owned = yield* step(t.endpointsOf(current.ownerId));
    const pending = owned.reduce((sum, endpoint) => sum + endpoint.pendingDeliveries, 0);
    if (pending + adding <= quotas.pendingDeliveriesPerOwner) return true;
    let largest: WebhookEndpointRow = current;
    for (const endpoint of owned) {
      if (endpoint.pendingDeliveries > largest.pendingDeliveries) largest = endpoint;
    }
    if (largest.id === current.id || largest.pendingDeliveries === 0) {
      yield* backlogFull(t, current, next, now, quotas, 'owner');
      return false;
    }
    const other = yield* step(t.endpoint(largest.id, true));
    if (!other) continue;
    // Its events after its cursor are not queued either.
    yield* backlogFull(t, other, other.cursor + 1, now, quotas, 'owner');
  }
}

/**
 * Gives up an endpoint's pending deliveries and disables it; `next`: the
 * first event not queued. `limit`: the quota passed, the endpoint's own or
 * its owner's.
 */
function* backlogFull(
  t: WebhookTables,
  endpoint: WebhookEndpointRow,
  next: number,
  now: number,
  quotas: WebhookQuotas,
  limit: 'endpoint' | 'owner',
): Steps<void> {
  const oldest = yield* step(t.giveUpPending(endpoint.id, BACKLOG_GIVEN_UP));
  yield* step(t.trimFinished(endpoint.id, quotas.finishedDeliveriesKeptPerEndpoint));
  const missed = Math.min(oldest ?? next, next) - 1;
  const passed =
    limit === 'endpoint'
      ? `more than ${quotas.pendingDeliveriesPerEndpoint} deliveries would have been waiting to be sent, the most an endpoint may have`
      : `its account's endpoints would have had more than ${quotas.pendingDeliveriesPerOwner} deliveries waiting to be sent, the most an account may have, and this endpoint had the most of them`;
  yield* disableEndpoint(t, endpoint, now, {
    cause: 'backlog',
    reason: `Disabled at ${new Date(now).toISOString()}: ${passed}; the pending ones were given up and no later event was queued (read them from the feed with after=${cursorOf(missed)})`,
    change: { pendingDeliveries: 0, nextAttemptAt: null },
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
