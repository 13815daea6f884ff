import { type CallOptions, segment, type Transport } from './http.js';
import type {
  SecretRotation,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookPatch,
  WebhookWithSecret,
} from './types.js';

const BASE = '/listings/webhooks';
const endpoint = (id: string) => `${BASE}/${segment(id)}`;

/** Webhook endpoints (/listings/webhooks): a customer's own, or any for an employee. */
export function webhooksApi(http: Transport) {
  return {
    /** 201 with the endpoint and its signing `secret`, shown only here. */
    create: (body: WebhookCreate, options?: CallOptions) =>
      http.json<WebhookWithSecret>('POST', BASE, { ...options, body }),
    list: (options?: CallOptions) => http.json<WebhookList>('GET', BASE, options),
    get: (id: string, options?: CallOptions) => http.json<Webhook>('GET', endpoint(id), options),
    /** The fields given; `enabled: true` re-enables an endpoint the service disabled. */
    update: (id: string, body: WebhookPatch, options?: CallOptions) =>
      http.json<Webhook>('PATCH', endpoint(id), { ...options, body }),
    delete: (id: string, options?: CallOptions) => http.send('DELETE', endpoint(id), options),
    /** A new secret; the old one keeps signing beside it for 24 hours. */
    rotateSecret: (id: string, options?: CallOptions) =>
      http.json<SecretRotation>('POST', `${endpoint(id)}/rotate-secret`, options),
    /** The newest 100 deliveries, newest first. */
    deliveries: (id: string, options?: CallOptions) =>
      http.json<WebhookDeliveryList>('GET', `${endpoint(id)}/deliveries`, options),
    /** Queues a delivery again (same `webhook-id`); sent on the delivery job's next run. */
    redeliver: (id: string, deliveryId: string, options?: CallOptions) =>
      http.json<WebhookDelivery>(
        'POST',
        `${endpoint(id)}/deliveries/${segment(deliveryId)}/redeliver`,
        options,
      ),
  };
}
