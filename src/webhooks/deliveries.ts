import type { WebhookDeliveryRow } from '@/db/schema';
import { cursorOf } from '@/events/cursor';
import type { EventType } from '@/events/schemas';
import type { StoredEvent } from '@/events/store';
import type { Delivery } from './schemas';

/** Waits after the 1st, 2nd, 3rd and 4th failed attempt; hourly after that. */
export const RETRY_DELAYS_MS = [30_000, 60_000, 120_000, 300_000] as const;
const HOUR_MS = 60 * 60 * 1000;
/** A delivery is given up, and an endpoint failing all along disabled, after this long. */
export const GIVE_UP_MS = 24 * HOUR_MS;

export const retryDelay = (attempts: number): number => RETRY_DELAYS_MS[attempts - 1] ?? HOUR_MS;

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
