import { and, eq, sql } from 'drizzle-orm';
import type { Caller } from '@/auth/tokens';
import type { Db, DbOrTx } from '@/db/client';
import { uuidv7 } from '@/db/ids';
import { events, type WebhookEndpointRow, webhookEndpoints } from '@/db/schema';
import type { EventType } from '@/events/schemas';
import { fail } from '@/kernel/errors';
import type {
  SecretRotation,
  Webhook,
  WebhookCreate,
  WebhookPatch,
  WebhookWithSecret,
} from './schemas';
import { newSecret } from './signing';

/** A customer's endpoints at most: each one multiplies the deliveries of its events. */
export const MAX_ENDPOINTS_PER_CUSTOMER = 20;

/** After a rotation the old secret still signs for this long. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

/** The owner a customer's endpoints belong to; null (every event) for an employee's. */
const ownerOf = (caller: Caller): string | null => (caller.aud === 'customer' ? caller.sub : null);

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

/** An endpoint `caller` may manage: a customer its own, an employee any; 404 otherwise. */
export function findEndpoint(db: DbOrTx, caller: Caller, id: string): WebhookEndpointRow {
  const row = db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
  if (!row || (caller.aud === 'customer' && row.ownerId !== caller.sub)) {
    throw fail('webhook.not_found');
  }
  return row;
}

/** The last event id now: a new or re-enabled endpoint is sent what happens from here on. */
const lastEventId = (db: DbOrTx): number =>
  db
    .select({ id: sql<number>`coalesce(max(${events.id}), 0)` })
    .from(events)
    .get()!.id;

/** POST /listings/webhooks: the URL was checked before (it takes a DNS lookup); 409 past the limit. */
export function createEndpoint(
  db: Db,
  caller: Caller,
  input: WebhookCreate,
  now: number,
): WebhookWithSecret {
  const at = new Date(now);
  const owner = ownerOf(caller);
  const row = db.transaction(
    (tx) => {
      if (owner !== null) {
        const { n } = tx
          .select({ n: sql<number>`count(*)` })
          .from(webhookEndpoints)
          .where(eq(webhookEndpoints.ownerId, owner))
          .get()!;
        if (n >= MAX_ENDPOINTS_PER_CUSTOMER) throw fail('webhook.limit_reached');
      }
      return tx
        .insert(webhookEndpoints)
        .values({
          id: uuidv7(now),
          ownerId: owner,
          url: input.url,
          description: input.description ?? null,
          types: input.types ?? [],
          enabled: input.enabled ?? true,
          secret: newSecret(),
          cursor: lastEventId(tx),
          createdAt: at,
          updatedAt: at,
        })
        .returning()
        .get();
    },
    { behavior: 'immediate' },
  );
  return { ...toWebhook(row), secret: row.secret };
}

export function listEndpoints(db: Db, caller: Caller): Webhook[] {
  const owner = ownerOf(caller);
  const rows = db
    .select()
    .from(webhookEndpoints)
    .where(caller.aud === 'customer' ? eq(webhookEndpoints.ownerId, owner ?? '') : undefined)
    .orderBy(webhookEndpoints.id)
    .all();
  return rows.map(toWebhook);
}

/**
 * PATCH: the fields given. Enabling an endpoint clears why it was disabled
 * and its failure streak, and starts it at the current event: events of the
 * time it was off are not sent (read them from the feed).
 */
export function patchEndpoint(
  db: Db,
  caller: Caller,
  id: string,
  patch: WebhookPatch,
  now: number,
): Webhook {
  return db.transaction(
    (tx) => {
      const row = findEndpoint(tx, caller, id);
      const enabling = patch.enabled === true && !row.enabled;
      const updated = tx
        .update(webhookEndpoints)
        .set({
          ...(patch.url === undefined ? {} : { url: patch.url }),
          ...(patch.types === undefined ? {} : { types: patch.types }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
          ...(enabling
            ? { disabledReason: null, failingSince: null, cursor: lastEventId(tx) }
            : {}),
          updatedAt: new Date(now),
        })
        .where(eq(webhookEndpoints.id, id))
        .returning()
        .get();
      return toWebhook(updated);
    },
    { behavior: 'immediate' },
  );
}

/** DELETE: the endpoint and its delivery log. */
export function deleteEndpoint(db: Db, caller: Caller, id: string): void {
  db.transaction(
    (tx) => {
      findEndpoint(tx, caller, id);
      tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).run();
    },
    { behavior: 'immediate' },
  );
}

/** A new secret; the current one keeps signing (beside it) for 24 hours. */
export function rotateSecret(db: Db, caller: Caller, id: string, now: number): SecretRotation {
  return db.transaction(
    (tx) => {
      const row = findEndpoint(tx, caller, id);
      const secret = newSecret();
      const expiresAt = new Date(now + PREVIOUS_SECRET_MS);
      tx.update(webhookEndpoints)
        .set({
          secret,
          previousSecret: row.secret,
          previousSecretExpiresAt: expiresAt,
          updatedAt: new Date(now),
        })
        .where(and(eq(webhookEndpoints.id, id)))
        .run();
      return { secret, previousSecretExpiresAt: expiresAt.toISOString() };
    },
    { behavior: 'immediate' },
  );
}

/** Whether any endpoint would take deliveries now. */
export const hasEnabledEndpoint = (db: Db): boolean =>
  db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.enabled, true))
    .limit(1)
    .get() !== undefined;

/** The secrets that sign a delivery now: the current one, and the previous one while it lives. */
export const signingSecrets = (row: WebhookEndpointRow, now: number): string[] =>
  row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > now
    ? [row.secret, row.previousSecret]
    : [row.secret];
