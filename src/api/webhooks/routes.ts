import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { withLocation } from '@/api/docs/headers';
import { requires } from '@/api/listings/guard';
import { NoBody, noContent, problems } from '@/api/listings/schemas';
import { bodyRules } from '@/api/plugins/body-rules';
import { fieldError } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import { ATTEMPT_TIMEOUT_MS } from '@/webhooks/attempt';
import {
  Delivery,
  DeliveryList,
  DeliveryParams,
  SecretRotation,
  Webhook,
  WebhookCreate,
  WebhookList,
  WebhookParams,
  WebhookPatch,
  WebhookWithSecret,
} from '@/webhooks/schemas';
import { vetTarget } from '@/webhooks/url-policy';

const tags = ['Listings: webhooks'];

/**
 * Webhook endpoints (docs/events-and-webhooks.md): a customer manages its
 * own (sent its own properties' events), an employee any.
 */
export const webhookRoutes = ({ stores: { webhooks }, clock, config, auth, writes }: ApiDeps) => {
  /**
   * 422 naming `url` when it may not receive webhooks (scheme, credentials,
   * address): the check every attempt makes too, its lookup bounded alike.
   */
  const checkUrl = async (url: string) => {
    const vetting = await vetTarget(url, config.webhooks, {
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    if (!vetting.ok) {
      throw fieldError(
        ['url'],
        'notAllowed',
        `This URL cannot receive webhooks: ${vetting.reason}`,
      );
    }
  };
  return new Elysia({ name: 'listings-webhooks' })
    .use(auth)
    .use(writes)
    .use(bodyRules)
    .post(
      '/webhooks',
      async ({ body, caller, set }) => {
        await checkUrl(body.url);
        const endpoint = await webhooks.createEndpoint(
          caller,
          body,
          clock(),
          config.webhookQuotas.endpointsPerCustomer,
        );
        set.status = 201;
        set.headers.location = `/listings/webhooks/${endpoint.id}`;
        return endpoint;
      },
      {
        ...requires.any,
        writes: 1,
        badBody: 'unprocessable',
        parse: 'json',
        body: WebhookCreate,
        response: {
          201: withLocation(WebhookWithSecret, 'The path of the new endpoint'),
          ...problems(400, 401, 409, 422),
        },
        detail: {
          operationId: 'createWebhook',
          summary: 'Register a webhook endpoint (the signing secret is shown only here)',
          description:
            'A customer may have WEBHOOK_ENDPOINTS_PER_CUSTOMER endpoints (default 20); one more answers 409.',
          tags,
        },
      },
    )
    .get(
      '/webhooks',
      ({ caller }) => whenReady(webhooks.listEndpoints(caller), (data) => ({ data })),
      {
        ...requires.any,
        response: { 200: WebhookList, ...problems(401) },
        detail: { operationId: 'listWebhooks', summary: 'List webhook endpoints', tags },
      },
    )
    .get('/webhooks/:id', ({ params, caller }) => webhooks.getEndpoint(caller, params.id), {
      ...requires.any,
      params: WebhookParams,
      response: { 200: Webhook, ...problems(400, 401, 404) },
      detail: { operationId: 'getWebhook', summary: 'Read a webhook endpoint', tags },
    })
    .patch(
      '/webhooks/:id',
      async ({ params, body, caller }) => {
        // 404 before the URL's check (a DNS lookup) for an endpoint the caller cannot see.
        await webhooks.getEndpoint(caller, params.id);
        if (body.url !== undefined) await checkUrl(body.url);
        return webhooks.patchEndpoint(caller, params.id, body, clock());
      },
      {
        ...requires.any,
        writes: 1,
        badBody: 'unprocessable',
        params: WebhookParams,
        parse: 'json',
        body: WebhookPatch,
        response: { 200: Webhook, ...problems(400, 401, 404, 422) },
        detail: {
          operationId: 'updateWebhook',
          summary: 'Change a webhook endpoint (enabled: true re-enables a disabled one)',
          tags,
        },
      },
    )
    .delete(
      '/webhooks/:id',
      ({ params, caller, set }) =>
        whenReady(webhooks.deleteEndpoint(caller, params.id), () => noContent(set)),
      {
        ...requires.any,
        writes: 1,
        params: WebhookParams,
        response: { 204: NoBody, ...problems(400, 401, 404) },
        detail: { operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint', tags },
      },
    )
    .post(
      '/webhooks/:id/rotate-secret',
      ({ params, caller }) => webhooks.rotateSecret(caller, params.id, clock()),
      {
        ...requires.any,
        writes: 1,
        params: WebhookParams,
        response: { 200: SecretRotation, ...problems(400, 401, 404) },
        detail: {
          operationId: 'rotateWebhookSecret',
          summary: 'Replace the signing secret (the old one still signs for 24 hours)',
          tags,
        },
      },
    )
    .get(
      '/webhooks/:id/deliveries',
      ({ params, caller }) =>
        whenReady(webhooks.listDeliveries(caller, params.id), (data) => ({ data })),
      {
        ...requires.any,
        params: WebhookParams,
        response: { 200: DeliveryList, ...problems(400, 401, 404) },
        detail: {
          operationId: 'listWebhookDeliveries',
          summary: 'The newest 100 deliveries of an endpoint, newest first',
          tags,
        },
      },
    )
    .post(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      ({ params, caller, set }) => {
        set.status = 202;
        return webhooks.redeliver(caller, params.id, Number(params.deliveryId), clock());
      },
      {
        ...requires.any,
        writes: 1,
        params: DeliveryParams,
        response: { 202: Delivery, ...problems(400, 401, 404) },
        detail: {
          operationId: 'redeliverWebhook',
          summary: 'Send a delivery again (queued: the delivery worker sends it on its next run)',
          tags,
        },
      },
    );
};
