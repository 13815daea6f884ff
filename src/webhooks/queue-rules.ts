import { type AnyColumn, and, eq, isNull, lte, or } from 'drizzle-orm';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { type Steps, step } from '@/kernel/steps';
import type { WebhookTables } from '@/webhooks/tables';
import { deliveryBody, EVENT_NOT_KEPT, settleGivenUp } from './deliveries';
import { fanOutAll, fanOutBatchOf } from './fan-out';
import type { Run } from './operations';
import type { DueDelivery, WebhookQueueReads, WebhookStore } from './store';

/**
 * The endpoint `claimEndpoint` may claim at `now`: enabled, and no attempt
 * in flight (its claim free or lapsed). Written once over either schema's
 * columns.
 */
export const claimable = (
  endpoints: { id: AnyColumn; enabled: AnyColumn; deliveryClaimedUntil: AnyColumn },
  endpointId: string,
  now: number,
) =>
  and(
    eq(endpoints.id, endpointId),
    eq(endpoints.enabled, true),
    or(isNull(endpoints.deliveryClaimedUntil), lte(endpoints.deliveryClaimedUntil, new Date(now))),
  );

/** Drives an operation made of several transactions to its end: `runNow` or `runLater`. */
export type Drive = <T>(steps: Steps<T>) => MaybePromise<T>;

/**
 * Claims `endpointId` and reads its next delivery, in one transaction. The
 * claim comes first: a second claimer (another instance on PostgreSQL)
 * waits for this commit and then finds the endpoint claimed, and the
 * delivery read under the claim sees what the previous claimer recorded,
 * so nothing is sent twice. With nothing due the claim is let go at once.
 */
function* claimDelivery(
  t: WebhookTables,
  endpointId: string,
  now: number,
  until: number,
): Steps<DueDelivery | null> {
  const endpoint = yield* step(t.claimEndpoint(endpointId, now, until));
  if (!endpoint) return null;
  // A delivery whose event was pruned is never sent (`pruneDeliveries` fails it).
  const next = yield* step(t.nextDelivery(endpointId, now));
  if (!next) {
    yield* step(t.updateEndpoint(endpointId, { deliveryClaimedUntil: null }));
    return null;
  }
  const delivery = yield* step(t.delivery(next.id));
  if (!delivery) return null;
  return { delivery, endpoint, body: deliveryBody(next) };
}

/**
 * How long a pending delivery may stay due without an attempt. An enabled
 * endpoint's due delivery is attempted within seconds: one stays due that
 * long when its endpoint was disabled, or behind earlier deliveries of its
 * resource retried for days. A change that old is not sent when the
 * endpoint is enabled again, as the events of the time it was off are not
 * (`patchEndpoint`): its owner reads them from the feed.
 */
export const OVERDUE_GIVE_UP_MS = 7 * 24 * 60 * 60 * 1000;

/** The error of a pending delivery given up after `OVERDUE_GIVE_UP_MS` due without an attempt. */
export const OVERDUE_GIVEN_UP = 'not sent: due for 7 days without an attempt';

/**
 * The prune of the delivery log at `now`, in one transaction: finished
 * deliveries past the events' retention or whose event is gone are
 * deleted; a pending delivery whose event is gone can never be sent, so it
 * is failed (`EVENT_NOT_KEPT`), and so is one due for `OVERDUE_GIVE_UP_MS`
 * without an attempt (`OVERDUE_GIVEN_UP`); the next of their resource may
 * go, and they go at a later prune; each endpoint keeps its newest
 * `keptPerEndpoint` finished ones.
 */
function* pruneDeliveries(
  t: WebhookTables,
  cutoff: number,
  keptPerEndpoint: number,
  now: number,
): Steps<number> {
  let deleted = yield* step(t.deleteFinished(cutoff));
  yield* settleGivenUp(t, yield* step(t.giveUpOrphaned(EVENT_NOT_KEPT)));
  const overdueSince = now - OVERDUE_GIVE_UP_MS;
  yield* settleGivenUp(t, yield* step(t.giveUpDueBefore(overdueSince, OVERDUE_GIVEN_UP)));
  for (const id of yield* step(t.endpointIds())) {
    deleted += yield* step(t.trimFinished(id, keptPerEndpoint));
  }
  return deleted;
}

/**
 * The delivery queue's operations of a store: fan-out, claim and prune,
 * each transaction run by `run`, the fan-out's batches one after the other
 * by `drive`.
 */
export const queueRules = (run: Run, drive: Drive, reads: WebhookQueueReads) =>
  ({
    fanOut: (now, quotas) =>
      drive(fanOutAll(reads.laggingEndpoints(), (id) => fanOutBatchOf(run, id, now, quotas))),
    claimDelivery: (endpointId, now, until) => run((t) => claimDelivery(t, endpointId, now, until)),
    pruneDeliveries: (cutoff, keptPerEndpoint, now) =>
      run((t) => pruneDeliveries(t, cutoff, keptPerEndpoint, now)),
  }) satisfies Partial<WebhookStore>;
