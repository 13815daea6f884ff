import { afterAll, describe, expect, test } from 'bun:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { EventPage, Event as EventSchema } from '@/events/schemas';
import { Webhook, WebhookWithSecret } from '@/webhooks/schemas';
import * as webhookDelivery from '@/workers/webhook-delivery';
import { ProblemError, verifyWebhook, WebhookVerificationError } from '../../client/src';
import { startReceiver } from '../webhooks/support';
import { collect, propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest({ WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' });
const receiver = startReceiver();
afterAll(() => receiver.stop());

describe('client.listings.events', () => {
  test('all() walks the feed page by page and resumes from a saved cursor', async () => {
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push((await svc.employee.listings.properties.create(propertyBody('owner-e'))).id);
    }
    const events = await collect(svc.employee.listings.events.all({ limit: 2 }));
    expect(events.map((event) => EventSchema.parse(event).resource.id)).toEqual(created);
    const saved = events[2]!.id;
    const resumed = await collect(svc.employee.listings.events.all({ after: saved }));
    expect(resumed.map((event) => event.resource.id)).toEqual(created.slice(3));
    const page = EventPage.parse(
      await svc.employee.listings.events.list({ after: saved, limit: 1 }),
    );
    expect(page).toMatchObject({ has_more: true, next_cursor: events[3]!.id });
  });

  test('all({follow: true}) long-polls for what comes next', async () => {
    const { data: events } = EventPage.parse(
      await svc.employee.listings.events.list({ limit: 500 }),
    );
    const controller = new AbortController();
    const following = svc.employee.listings.events.all({
      after: events.at(-1)?.id,
      follow: true,
      signal: controller.signal,
    });
    const next = following.next();
    const { id } = await svc.employee.listings.properties.create(propertyBody('owner-e'));
    expect((await next).value).toMatchObject({ type: 'property.created', resource: { id } });
    controller.abort();
    await following.return(undefined);
  });

  test('a bad cursor is a ProblemError 400', async () => {
    const error = await collect(svc.employee.listings.events.all({ after: 'nope' })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).status).toBe(400);
  });
});

describe('client.webhooks and verifyWebhook', () => {
  test('create, deliver, verify the delivery, read the log, redeliver, rotate, delete', async () => {
    const api = svc.employee.webhooks;
    const endpoint = WebhookWithSecret.parse(
      await api.create({ url: receiver.url(), types: ['property.created'] }),
    );
    expect(Webhook.parse(await api.get(endpoint.id)).url).toBe(receiver.url());
    expect((await api.list()).data.map((hook) => hook.id)).toContain(endpoint.id);
    const { id } = await svc.employee.listings.properties.create(propertyBody('owner-w'));
    await webhookDelivery.run(svc.deps);
    const delivered = receiver.received.at(-1)!;
    const payload = await verifyWebhook(delivered.body, delivered.headers, endpoint.secret, {
      now: svc.clock(),
    });
    expect(payload).toMatchObject({ type: 'property.created', data: { id } });

    const [delivery] = (await api.deliveries(endpoint.id)).data;
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await api.redeliver(endpoint.id, delivery!.id)).toMatchObject({ status: 'pending' });
    const rotation = await api.rotateSecret(endpoint.id);
    expect(rotation.secret).toStartWith('whsec_');
    expect(await api.update(endpoint.id, { enabled: false })).toMatchObject({ enabled: false });
    await api.delete(endpoint.id);
    const gone = await api.get(endpoint.id).catch((e) => e);
    expect((gone as ProblemError).status).toBe(404);
  });

  test('verifyWebhook accepts what the standardwebhooks package signs, and nothing else', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body =
      '{"type":"unit.updated","timestamp":"2026-11-25T10:00:00.000Z","data":{"id":"u1"}}';
    const at = new Date('2026-11-25T10:00:05Z');
    const signature = new StandardWebhook(secret).sign('ev-1', at, body);
    const headers = {
      'webhook-id': 'ev-1',
      'webhook-timestamp': String(at.getTime() / 1000),
      'webhook-signature': signature,
    };
    const now = at.getTime();
    expect(await verifyWebhook(body, headers, secret, { now })).toEqual(JSON.parse(body));
    expect(await verifyWebhook(body, new Headers(headers), secret, { now })).toEqual(
      JSON.parse(body),
    );
    const twoSignatures = { ...headers, 'webhook-signature': `v1,bm9wZQ== ${signature}` };
    expect(await verifyWebhook(body, twoSignatures, secret, { now })).toEqual(JSON.parse(body));
    const refusals: [string, Record<string, string>, string, number][] = [
      [body.replace('u1', 'u2'), headers, secret, now],
      [body, { ...headers, 'webhook-id': 'ev-2' }, secret, now],
      [body, headers, 'whsec_b3RoZXIgc2VjcmV0IG9mIDMyIGJ5dGVzIGxvbmchIQ==', now],
      [body, headers, secret, now + 301_000],
      [
        body,
        { 'webhook-id': 'ev-1', 'webhook-timestamp': headers['webhook-timestamp'] },
        secret,
        now,
      ],
    ];
    for (const [payload, given, key, when] of refusals) {
      const error = await verifyWebhook(payload, given, key, { now: when }).catch((e) => e);
      expect(error).toBeInstanceOf(WebhookVerificationError);
    }
  });
});
