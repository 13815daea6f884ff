import type { Caller } from '@/auth/tokens';
import type {
  WebhookDeliveryRow,
  WebhookEndpointRow,
  webhookDeliveries,
  webhookEndpoints,
} from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type {
  Delivery,
  SecretRotation,
  Webhook,
  WebhookCreate,
  WebhookPatch,
  WebhookWithSecret,
} from './schemas';
import type { SummaryRow } from './summary';

export type NewEndpoint = typeof webhookEndpoints.$inferInsert;
export type EndpointChange = Partial<Omit<NewEndpoint, 'id'>>;
export type NewDelivery = typeof webhookDeliveries.$inferInsert;
export type DeliveryChange = Partial<Omit<NewDelivery, 'id'>>;

/** The one query of the queue's rules that a store answers outside any transaction. */
export interface WebhookQueueReads {
  /**
   * Enabled endpoints whose cursor is behind the last event, by id:
   * endpoints already at it need no write transaction (the idle case).
   */
  laggingEndpoints(): MaybePromise<string[]>;
}

export interface DueEndpoint {
  endpointId: string;
  /** The customer it belongs to; null for an employee's. */
  ownerId: string | null;
  /** In the slow lane: its last attempts failed (`SLOW_LANE_AFTER_FAILURES`). */
  slow: boolean;
}

/** A pending delivery given up outside `recordAttempt` (its event pruned). */
export interface GivenUp {
  endpointId: string;
  resource: string;
  blocked: boolean;
}

/** A delivery `claimDelivery` may send, with what its body is built from (`occurredAt` in ms). */
export interface NextDelivery {
  id: number;
  type: string;
  occurredAt: number;
  data: string;
}

export interface DueDelivery {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
  /** What every attempt sends and signs, built from the event row (`deliveryBody`). */
  body: string;
}

/** What webhooks may make the service store (WEBHOOK_* in the configuration). */
export interface WebhookQuotas {
  /** A customer's endpoints at most; employees have no limit. */
  endpointsPerCustomer: number;
  /** An endpoint's pending deliveries at most: past it the fan-out gives them up and disables the endpoint. */
  pendingDeliveriesPerEndpoint: number;
  /**
   * A customer's pending deliveries at most, all its endpoints together:
   * past it the fan-out gives up the largest backlog of its endpoints and
   * disables that endpoint. Employees' endpoints have only the per-endpoint quota.
   */
  pendingDeliveriesPerOwner: number;
  /** An endpoint's finished deliveries kept, the newest; older ones are deleted. */
  finishedDeliveriesKeptPerEndpoint: number;
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Webhook endpoints and their deliveries. Every method is one operation in
 * one transaction (fan-out: one transaction per batch), with the rules
 * written once in `operations.ts` and `queue-rules.ts`. `sqliteWebhookStore` answers at once,
 * `postgresWebhookStore` with promises.
 */
export interface WebhookStore {
  /** 409 (`webhook.limit_reached`) when a customer already has `endpointsPerCustomer`. */
  createEndpoint(
    caller: Caller,
    input: WebhookCreate,
    now: number,
    endpointsPerCustomer: number,
  ): MaybePromise<WebhookWithSecret>;
  listEndpoints(caller: Caller): MaybePromise<Webhook[]>;
  /** An endpoint `caller` may manage; 404 otherwise. */
  getEndpoint(caller: Caller, id: string): MaybePromise<Webhook>;
  patchEndpoint(
    caller: Caller,
    id: string,
    patch: WebhookPatch,
    now: number,
  ): MaybePromise<Webhook>;
  deleteEndpoint(caller: Caller, id: string): MaybePromise<void>;
  rotateSecret(caller: Caller, id: string, now: number): MaybePromise<SecretRotation>;
  /** Whether any endpoint would take deliveries now. */
  hasEnabledEndpoint(): MaybePromise<boolean>;
  listDeliveries(caller: Caller, endpointId: string): MaybePromise<Delivery[]>;
  redeliver(
    caller: Caller,
    endpointId: string,
    deliveryId: number,
    now: number,
  ): MaybePromise<Delivery>;
  /**
   * Queues the new events of every enabled endpoint; answers how many
   * deliveries. An endpoint whose pending deliveries would pass the quota is
   * disabled instead (its pending deliveries given up); an endpoint queued to
   * has its finished deliveries trimmed to the quota.
   */
  fanOut(now: number, quotas: WebhookQuotas): MaybePromise<number>;
  /**
   * Enabled endpoints of one lane (`slow`) whose `nextAttemptAt` has come
   * and with no attempt in flight (their claim free or lapsed), the longest
   * waiting first, at most `limit`: a range of `webhook_endpoints_due`,
   * whatever the number of pending deliveries.
   */
  dueEndpoints(now: number, limit: number, slow: boolean): MaybePromise<DueEndpoint[]>;
  /**
   * Claims `endpointId` until `until` and answers its next delivery: of its
   * due ones whose resource has no earlier pending delivery (not `blocked`:
   * the events of a resource go in order), the one due longest ago, then
   * the oldest; the first entry of `webhook_deliveries_next`. Null,
   * claiming nothing, when it has none due or is claimed already: one
   * attempt per endpoint at a time, on every instance.
   */
  claimDelivery(endpointId: string, now: number, until: number): MaybePromise<DueDelivery | null>;
  /** Ends the claim `claimDelivery` took until `until` (a later claimer's is left alone). */
  releaseEndpoint(endpointId: string, until: number): MaybePromise<void>;
  /** Records an attempt; answers whether its endpoint is now in the slow lane. */
  recordAttempt(id: number, outcome: AttemptOutcome, now: number): MaybePromise<boolean>;
  /**
   * Deletes the finished deliveries older than `cutoff` (the events'
   * retention), those whose event was pruned, and each endpoint's beyond the
   * newest `keptPerEndpoint`; answers how many. A pending delivery whose event
   * was pruned can never be sent: it is marked failed (`EVENT_NOT_KEPT`) and
   * goes at the next prune; so is one due for `OVERDUE_GIVE_UP_MS` at `now`
   * without an attempt (`OVERDUE_GIVEN_UP`).
   */
  pruneDeliveries(cutoff: number, keptPerEndpoint: number, now: number): MaybePromise<number>;
  /** Every endpoint with its deliveries last attempted since `since` (`summaryQuery`). */
  summarize(since: number): MaybePromise<SummaryRow[]>;
}
