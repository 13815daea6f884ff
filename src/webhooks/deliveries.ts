import { toolContext } from '@/audit/record';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '@/db/sqlite/schema';
import { cursorOf } from '@/events/cursor';
import type { EventType } from '@/events/schemas';
import type { StoredEvent } from '@/events/store';
import { type Steps, step } from '@/kernel/steps';
import type { WebhookTables } from '@/webhooks/tables';
import type { Delivery } from './schemas';
import type { AttemptOutcome, EndpointChange, GivenUp } from './store';

/** Waits after the 1st, 2nd, 3rd and 4th failed attempt; hourly after that. */
export const RETRY_DELAYS_MS = [30_000, 60_000, 120_000, 300_000] as const;
const HOUR_MS = 60 * 60 * 1000;
/** A delivery is given up, and an endpoint failing all along disabled, after this long. */
export const GIVE_UP_MS = 24 * HOUR_MS;

export const retryDelay = (attempts: number): number => RETRY_DELAYS_MS[attempts - 1] ?? HOUR_MS;

/**
 * An endpoint whose attempts failed this many times in a row (errors,
 * timeouts, refusals) goes to the slow lane, whose attempts may take only
 * a bounded part of the delivery slots (`slowLaneShareOf`); its next
 * success brings it back. One failure is a blip; three in a row (retries
 * 30 s and 60 s apart, or three deliveries one after another) a receiver
 * that is down or hangs.
 */
export const SLOW_LANE_AFTER_FAILURES = 3;

/**
 * The body every attempt and redelivery of an event sends and signs, built
 * from the event row: the same bytes each time, and the event's `data` kept
 * once however many endpoints receive it.
 */
export const deliveryBody = (event: Pick<StoredEvent, 'type' | 'occurredAt' | 'data'>): string =>
  `{"type":${JSON.stringify(event.type)},"timestamp":"${new Date(event.occurredAt).toISOString()}","data":${event.data}}`;

/** The error of the pending deliveries given up when an endpoint's backlog passed its quota. */
export const BACKLOG_GIVEN_UP =
  'not sent: the endpoint was disabled with too many deliveries waiting';

/** The error of a pending delivery whose event was pruned (EVENTS_RETENTION_DAYS) before it was sent. */
export const EVENT_NOT_KEPT = 'not sent: the event is no longer kept (EVENTS_RETENTION_DAYS)';

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

/** Why the service disabled an endpoint: its receiver kept failing, or its backlog was full. */
export interface Disabling {
  cause: 'failing' | 'backlog';
  /** The `disabledReason` its owner reads. */
  reason: string;
  /** Other columns changed with it. */
  change?: EndpointChange;
}

/**
 * Disables an endpoint on the service's own account, and writes the
 * `webhook.disabled` audit event in the same transaction: a customer's
 * shows in its owner's security log; an employee's endpoint (no owner
 * account) has no subject and shows in the operators' audit log.
 */
export function* disableEndpoint(
  t: WebhookTables,
  endpoint: WebhookEndpointRow,
  now: number,
  { cause, reason, change }: Disabling,
): Steps<void> {
  yield* step(
    t.updateEndpoint(endpoint.id, {
      ...change,
      enabled: false,
      disabledReason: reason,
      updatedAt: new Date(now),
    }),
  );
  yield* step(
    t.recordAudit(toolContext(now), {
      action: 'webhook.disabled',
      subject: endpoint.ownerId,
      target: endpoint.id,
      details: { cause, reason },
    }),
  );
}

/**
 * The first pending delivery of a resource, once the one before it is no
 * longer pending, is no longer blocked: it may go.
 */
export function* unblockNext(t: WebhookTables, endpointId: string, resource: string): Steps<void> {
  const next = yield* step(t.firstPending(endpointId, resource));
  if (next !== null) yield* step(t.updateDelivery(next, { blocked: false }));
}

/**
 * After pending deliveries were given up outside an attempt (their event
 * pruned): the next of each resource may go, and each endpoint's count of
 * pending deliveries and next due time follow.
 */
export function* settleGivenUp(t: WebhookTables, givenUp: readonly GivenUp[]): Steps<void> {
  const byEndpoint = new Map<string, number>();
  for (const row of givenUp)
    byEndpoint.set(row.endpointId, (byEndpoint.get(row.endpointId) ?? 0) + 1);
  for (const [endpointId, count] of byEndpoint) {
    const endpoint = yield* step(t.endpoint(endpointId, true));
    if (!endpoint) continue;
    for (const row of givenUp) {
      if (row.endpointId === endpointId && !row.blocked) {
        yield* unblockNext(t, endpointId, row.resource);
      }
    }
    yield* step(
      t.updateEndpoint(endpointId, {
        pendingDeliveries: Math.max(0, endpoint.pendingDeliveries - count),
      }),
    );
    yield* step(t.refreshDue(endpointId));
  }
}

/**
 * Records one attempt. A failure is retried on the schedule (30 s, 60 s,
 * 2 min, 5 min, then hourly, the last retry 24 hours after the first
 * attempt), then given up; an endpoint whose every attempt failed for 24
 * hours is disabled, with the reason shown to its owner. Counts the
 * endpoint's failures in a row: at `SLOW_LANE_AFTER_FAILURES` it goes to
 * the slow lane, a success brings it back. Answers whether it is slow now.
 */
export function* recordAttempt(
  t: WebhookTables,
  id: number,
  outcome: AttemptOutcome,
  now: number,
): Steps<boolean> {
  const found = yield* step(t.delivery(id));
  if (!found) return false; // The endpoint was deleted meanwhile.
  const endpoint = yield* step(t.endpoint(found.endpointId, true));
  if (!endpoint) return false;
  // Read again under the endpoint's lock: what a prune or redelivery did meanwhile is seen.
  const delivery = (yield* step(t.delivery(id))) ?? found;
  const attempts = delivery.attempts + 1;
  const first = delivery.firstAttemptAt?.getTime() ?? now;
  // The last retry is at 24 hours exactly, then the delivery is given up.
  const deadline = first + GIVE_UP_MS;
  const next = Math.min(now + retryDelay(attempts), deadline);
  const retry = !outcome.ok && now < deadline;
  const status = outcome.ok ? 'succeeded' : retry ? 'pending' : 'failed';
  yield* step(
    t.updateDelivery(id, {
      status,
      attempts,
      firstAttemptAt: new Date(first),
      lastAttemptAt: new Date(now),
      nextAttemptAt: retry ? new Date(next) : null,
      responseStatus: outcome.responseStatus,
      durationMs: outcome.durationMs,
      error: outcome.error,
    }),
  );
  const wasPending = delivery.status === 'pending';
  if (wasPending && status !== 'pending' && !delivery.blocked) {
    yield* unblockNext(t, endpoint.id, delivery.resource);
  }
  const consecutiveFailures = outcome.ok ? 0 : endpoint.consecutiveFailures + 1;
  const failingSince = outcome.ok ? null : new Date(endpoint.failingSince?.getTime() ?? now);
  const slow = !outcome.ok && consecutiveFailures >= SLOW_LANE_AFTER_FAILURES;
  const change: EndpointChange = {
    pendingDeliveries: Math.max(
      0,
      endpoint.pendingDeliveries + (status === 'pending' ? 1 : 0) - (wasPending ? 1 : 0),
    ),
    consecutiveFailures,
    slow,
    failingSince,
  };
  if (failingSince && endpoint.enabled && now - failingSince.getTime() >= GIVE_UP_MS) {
    yield* disableEndpoint(t, endpoint, now, {
      cause: 'failing',
      reason: `Disabled at ${new Date(now).toISOString()}: every delivery attempt failed since ${failingSince.toISOString()}; last: ${outcome.error}`,
      change,
    });
  } else {
    yield* step(t.updateEndpoint(endpoint.id, change));
  }
  yield* step(t.refreshDue(endpoint.id));
  return slow;
}
