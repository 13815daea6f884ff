import type { Caller } from '@/auth/tokens';
import { uuidv7 } from '@/db/ids';
import type { WebhookEndpointRow } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { type Steps, step } from '@/kernel/steps';
import type { WebhookTables } from '@/webhooks/tables';
import { recordAttempt, toDelivery } from './deliveries';
import { PREVIOUS_SECRET_MS, toWebhook } from './endpoints';
import type { WebhookCreate, WebhookPatch } from './schemas';
import { newSecret } from './signing';
import type { WebhookStore } from './store';

/** The owner a customer's endpoints belong to; null (every event) for an employee's. */
const ownerOf = (caller: Caller): string | null => (caller.aud === 'customer' ? caller.sub : null);

/** An endpoint `caller` may manage: a customer its own, an employee any; 404 otherwise. */
function* findEndpoint(
  t: WebhookTables,
  caller: Caller,
  id: string,
  forUpdate = false,
): Steps<WebhookEndpointRow> {
  const row = yield* step(t.endpoint(id, forUpdate));
  if (!row || (caller.aud === 'customer' && row.ownerId !== caller.sub)) {
    throw fail('webhook.not_found');
  }
  return row;
}

/** POST /listings/webhooks: the URL was checked before (it takes a DNS lookup); 409 past the limit. */
function* createEndpoint(
  t: WebhookTables,
  caller: Caller,
  input: WebhookCreate,
  now: number,
  endpointsPerCustomer: number,
) {
  const at = new Date(now);
  const owner = ownerOf(caller);
  if (owner !== null) {
    // Creates of one owner run one after the other, so two at once cannot both pass the limit.
    yield* step(t.lockOwner(owner));
    if ((yield* step(t.countOwned(owner))) >= endpointsPerCustomer) {
      throw fail('webhook.limit_reached');
    }
  }
  const row = yield* step(
    t.insertEndpoint({
      id: uuidv7(now),
      ownerId: owner,
      url: input.url,
      description: input.description ?? null,
      types: input.types ?? [],
      enabled: input.enabled ?? true,
      secret: newSecret(),
      // A new endpoint is sent what happens from here on.
      cursor: yield* step(t.lastEventId()),
      createdAt: at,
      updatedAt: at,
    }),
  );
  return { ...toWebhook(row), secret: row.secret };
}

/**
 * PATCH: the fields given. Enabling an endpoint clears why it was disabled
 * and its failure streak, and starts it at the current event: events of the
 * time it was off are not sent (read them from the feed).
 */
function* patchEndpoint(
  t: WebhookTables,
  caller: Caller,
  id: string,
  patch: WebhookPatch,
  now: number,
) {
  const row = yield* findEndpoint(t, caller, id, true);
  const enabling = patch.enabled === true && !row.enabled;
  const updated = yield* step(
    t.updateEndpoint(id, {
      ...(patch.url === undefined ? {} : { url: patch.url }),
      ...(patch.types === undefined ? {} : { types: patch.types }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
      ...(enabling
        ? {
            disabledReason: null,
            failingSince: null,
            consecutiveFailures: 0,
            slow: false,
            cursor: yield* step(t.lastEventId()),
          }
        : {}),
      updatedAt: new Date(now),
    }),
  );
  return toWebhook(updated);
}

/** DELETE: the endpoint and its delivery log. */
function* deleteEndpoint(t: WebhookTables, caller: Caller, id: string): Steps<void> {
  yield* findEndpoint(t, caller, id, true);
  yield* step(t.deleteEndpoint(id));
}

/** A new secret; the current one keeps signing (beside it) for 24 hours. */
function* rotateSecret(t: WebhookTables, caller: Caller, id: string, now: number) {
  const row = yield* findEndpoint(t, caller, id, true);
  const secret = newSecret();
  const expiresAt = new Date(now + PREVIOUS_SECRET_MS);
  yield* step(
    t.updateEndpoint(id, {
      secret,
      previousSecret: row.secret,
      previousSecretExpiresAt: expiresAt,
      updatedAt: new Date(now),
    }),
  );
  return { secret, previousSecretExpiresAt: expiresAt.toISOString() };
}

/** GET …/{id}/deliveries: the newest 100, newest first. */
function* listDeliveries(t: WebhookTables, caller: Caller, endpointId: string) {
  yield* findEndpoint(t, caller, endpointId);
  return (yield* step(t.recentDeliveries(endpointId, 100))).map(toDelivery);
}

/**
 * POST …/deliveries/{deliveryId}/redeliver: due now again, with a new 24-hour
 * window of retries (attempts keep counting). Same `webhook-id`: a receiver
 * that saw it already can tell. A finished delivery pending again goes
 * before the later pending deliveries of its resource, after earlier ones.
 */
function* redeliver(
  t: WebhookTables,
  caller: Caller,
  endpointId: string,
  deliveryId: number,
  now: number,
) {
  const endpoint = yield* findEndpoint(t, caller, endpointId, true);
  const found = yield* step(t.delivery(deliveryId));
  if (found?.endpointId !== endpointId) throw fail('webhook.delivery_not_found');
  let blocked = found.blocked;
  if (found.status !== 'pending') {
    const first = yield* step(t.firstPending(endpointId, found.resource));
    blocked = first !== null && first < deliveryId;
    // It goes first now: the one that went first waits behind it.
    if (first !== null && first > deliveryId) {
      yield* step(t.updateDelivery(first, { blocked: true }));
    }
    yield* step(
      t.updateEndpoint(endpointId, { pendingDeliveries: endpoint.pendingDeliveries + 1 }),
    );
  }
  const row = yield* step(
    t.updateDelivery(deliveryId, {
      status: 'pending',
      blocked,
      nextAttemptAt: new Date(now),
      firstAttemptAt: null,
    }),
  );
  yield* step(t.refreshDue(endpointId));
  return toDelivery(row);
}

export type Run = <T>(operation: (t: WebhookTables) => Steps<T>) => MaybePromise<T>;

/** The webhook operations of a store, each run by `run` in one transaction of it. */
export const webhookOperations = (run: Run) =>
  ({
    createEndpoint: (caller, input, now, endpointsPerCustomer) =>
      run((t) => createEndpoint(t, caller, input, now, endpointsPerCustomer)),
    listEndpoints: (caller) =>
      run(function* (t) {
        return (yield* step(t.endpointsOf(ownerOf(caller)))).map(toWebhook);
      }),
    getEndpoint: (caller, id) =>
      run(function* (t) {
        return toWebhook(yield* findEndpoint(t, caller, id));
      }),
    patchEndpoint: (caller, id, patch, now) => run((t) => patchEndpoint(t, caller, id, patch, now)),
    deleteEndpoint: (caller, id) => run((t) => deleteEndpoint(t, caller, id)),
    rotateSecret: (caller, id, now) => run((t) => rotateSecret(t, caller, id, now)),
    listDeliveries: (caller, endpointId) => run((t) => listDeliveries(t, caller, endpointId)),
    redeliver: (caller, endpointId, deliveryId, now) =>
      run((t) => redeliver(t, caller, endpointId, deliveryId, now)),
    recordAttempt: (id, outcome, now) => run((t) => recordAttempt(t, id, outcome, now)),
  }) satisfies Partial<WebhookStore>;
