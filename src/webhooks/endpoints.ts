import type { WebhookEndpointRow } from '@/db/sqlite/schema';
import type { EventType } from '@/events/schemas';
import type { Webhook } from './schemas';

/** After a rotation the old secret still signs for this long. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

export const toWebhook = (row: WebhookEndpointRow): Webhook => ({
  id: row.id,
  url: row.url,
  types: row.types as EventType[],
  description: row.description,
  enabled: row.enabled,
  ownerId: row.ownerId,
  disabledReason: row.disabledReason,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The secrets that sign a delivery now: the current one, and the previous one while it lives. */
export const signingSecrets = (row: WebhookEndpointRow, now: number): string[] =>
  row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > now
    ? [row.secret, row.previousSecret]
    : [row.secret];
