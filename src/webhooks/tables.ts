import type { AuditContext, AuditEntry } from '@/audit/record';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '@/db/sqlite/schema';
import type { StoredEvent } from '@/events/store';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type {
  DeliveryChange,
  EndpointChange,
  GivenUp,
  NewDelivery,
  NewEndpoint,
  NextDelivery,
} from '@/webhooks/store';

/**
 * The queries of the webhook operations (`operations.ts`), inside one
 * transaction of the store. SQLite answers at once; PostgreSQL later.
 */
export interface WebhookTables {
  /**
   * An endpoint by id. `forUpdate`: the rest of the transaction holds it
   * (PostgreSQL `FOR UPDATE`; SQLite's write transaction already does).
   */
  endpoint(id: string, forUpdate: boolean): MaybePromise<WebhookEndpointRow | undefined>;
  /**
   * Makes the rest of the transaction run after any other holding `owner`
   * (PostgreSQL: an advisory lock; SQLite's write transaction already does),
   * so its creates and fan-outs hold its limits. Taken before any endpoint
   * row is locked.
   */
  lockOwner(owner: string): MaybePromise<void>;
  /** How many endpoints `owner` has (after `lockOwner`, so the limit holds). */
  countOwned(owner: string): MaybePromise<number>;
  /** The highest event id committed (0 with none). */
  lastEventId(): MaybePromise<number>;
  insertEndpoint(values: NewEndpoint): MaybePromise<WebhookEndpointRow>;
  updateEndpoint(id: string, change: EndpointChange): MaybePromise<WebhookEndpointRow>;
  deleteEndpoint(id: string): MaybePromise<void>;
  delivery(id: number): MaybePromise<WebhookDeliveryRow | undefined>;
  updateDelivery(id: number, change: DeliveryChange): MaybePromise<WebhookDeliveryRow>;
  /** Events after `after`, in id order, at most `limit`. */
  eventsAfter(after: number, limit: number): MaybePromise<StoredEvent[]>;
  insertDeliveries(rows: NewDelivery[]): MaybePromise<void>;
  /** Which of `resources` have a pending delivery to the endpoint. */
  pendingResources(endpointId: string, resources: string[]): MaybePromise<Set<string>>;
  /** The id of the endpoint's first (lowest id) pending delivery of `resource`; null with none. */
  firstPending(endpointId: string, resource: string): MaybePromise<number | null>;
  /**
   * Sets the endpoint's `nextAttemptAt` to the earliest due time of its
   * pending deliveries that are not blocked (null with none): one read of
   * the first entry of `webhook_deliveries_next`.
   */
  refreshDue(endpointId: string): MaybePromise<void>;
  /**
   * Marks an endpoint's pending deliveries failed with `error`; answers the
   * oldest event id among them (null: none was pending).
   */
  giveUpPending(endpointId: string, error: string): MaybePromise<number | null>;
  /** Deletes an endpoint's finished deliveries but the newest `keep` (pending ones stay); answers how many. */
  trimFinished(endpointId: string, keep: number): MaybePromise<number>;
  /**
   * Claims the endpoint until `until` if it is enabled and no attempt holds
   * it (its claim free or lapsed at `now`); answers its row, undefined when
   * not claimed.
   */
  claimEndpoint(
    endpointId: string,
    now: number,
    until: number,
  ): MaybePromise<WebhookEndpointRow | undefined>;
  /**
   * The endpoint's next delivery with its event's fields (`NextDelivery`):
   * the first entry of `webhook_deliveries_next` due at `now`; null with none.
   */
  nextDelivery(endpointId: string, now: number): MaybePromise<NextDelivery | null>;
  /** Deletes the finished deliveries created before `cutoff` or whose event was pruned; answers how many. */
  deleteFinished(cutoff: number): MaybePromise<number>;
  /** Marks failed with `error` the pending deliveries whose event was pruned; answers them. */
  giveUpOrphaned(error: string): MaybePromise<GivenUp[]>;
  /**
   * Marks failed with `error` the pending deliveries due before `before`
   * (`next_attempt_at`); answers them.
   */
  giveUpDueBefore(before: number, error: string): MaybePromise<GivenUp[]>;
  /** Every endpoint's id. */
  endpointIds(): MaybePromise<string[]>;
  /** Appends an audit event in this transaction (`src/audit`). */
  recordAudit(context: AuditContext, entry: AuditEntry): MaybePromise<void>;
  /** `owner`'s endpoints, or every one (null), by id. */
  endpointsOf(owner: string | null): MaybePromise<WebhookEndpointRow[]>;
  /** An endpoint's newest deliveries, newest first. */
  recentDeliveries(endpointId: string, limit: number): MaybePromise<WebhookDeliveryRow[]>;
}
