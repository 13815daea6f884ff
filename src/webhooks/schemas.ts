import { z } from 'zod';
import { EVENT_TYPES, EventType } from '@/events/schemas';

const Url = z.string().min(1).max(2048).describe('https URL the events are POSTed to');
const Types = z
  .array(EventType)
  .max(EVENT_TYPES.length)
  .describe('Event types to send; empty or omitted: every type');
const Description = z.string().max(500);

/** POST /listings/webhooks. */
export const WebhookCreate = z.strictObject({
  url: Url,
  types: Types.optional(),
  description: Description.optional(),
  enabled: z.boolean().optional(),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;

/** PATCH /listings/webhooks/{id}: only the fields given change; `enabled: true` clears `disabledReason`. */
export const WebhookPatch = z.strictObject({
  url: Url.optional(),
  types: Types.optional(),
  description: Description.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type WebhookPatch = z.infer<typeof WebhookPatch>;

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  types: z.array(EventType),
  description: z.string().nullable(),
  enabled: z.boolean(),
  ownerId: z
    .string()
    .nullable()
    .describe('The customer whose property events it receives; null: every event (employees)'),
  disabledReason: z
    .string()
    .nullable()
    .describe('Why the service disabled it (deliveries failing for 24 hours); null otherwise'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Webhook = z.infer<typeof Webhook>;

/** The signing secret is shown once: in the answer to the create and to a rotation. */
export const WebhookWithSecret = Webhook.extend({
  secret: z.string().describe('`whsec_` + base64 key: verify each delivery with it'),
});
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const WebhookList = z.object({ data: z.array(Webhook) });

export const SecretRotation = z.object({
  secret: z.string(),
  previousSecretExpiresAt: z.iso
    .datetime()
    .describe('Until then deliveries carry a signature with the old secret too'),
});
export type SecretRotation = z.infer<typeof SecretRotation>;

export const WebhookParams = z.object({ id: z.string().max(64) });
export const DeliveryParams = z.object({
  id: z.string().max(64),
  deliveryId: z.string().regex(/^[1-9]\d{0,14}$/, 'must be a delivery id: digits, not 0'),
});

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const Delivery = z.object({
  id: z.string(),
  eventId: z.string().describe('The event cursor, also sent as `webhook-id`'),
  eventType: EventType,
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  responseStatus: z.int().nullable().describe('HTTP status of the last attempt'),
  durationMs: z.int().nullable(),
  error: z.string().nullable().describe('Why the last attempt failed'),
  lastAttemptAt: z.iso.datetime().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryList = z.object({ data: z.array(Delivery) });

/** GET /admin/webhooks/summary: how many hours back (a day unless asked). */
export const WebhookSummaryQuery = z.strictObject({
  hours: z.coerce.number().int().min(1).max(168).default(24),
});

export const WebhookSummary = z.object({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  endpoints: z.array(
    z.object({
      id: z.string(),
      url: z.string(),
      ownerId: z.string().nullable().describe('The customer it belongs to; null: an employee'),
      enabled: z.boolean(),
      disabledReason: z.string().nullable(),
      attempted: z.int().describe('Deliveries whose last attempt falls in the range'),
      succeeded: z.int().describe('Of those, the ones delivered'),
      successRate: z
        .number()
        .nullable()
        .describe('succeeded / attempted, 0 to 1; null with no attempt in the range'),
      p99DurationMs: z
        .int()
        .nullable()
        .describe("99th percentile (nearest rank) of those deliveries' last attempt duration"),
      lastError: z
        .object({ error: z.string(), at: z.iso.datetime() })
        .nullable()
        .describe('The newest failed attempt in the range: one of the generic reasons'),
    }),
  ),
});
export type WebhookSummary = z.infer<typeof WebhookSummary>;
