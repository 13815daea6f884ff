import { afterAll, expect, test } from 'bun:test';
import { cursorOf } from '@/events/cursor';
import {
  DeliveryList,
  SecretRotation,
  Webhook,
  WebhookList,
  WebhookWithSecret,
} from '@/webhooks/schemas';
import * as eventsPrune from '@/workers/events-prune';
import { propertyEvent, storesUnderTest, tokensOf } from '../events/stores';
import { manualClock, problemOf } from '../support/harness';
import { deliver, expectHiddenFrom, LOCAL_WEBHOOKS, startReceiver, verify } from './support';

const receiver = startReceiver();
afterAll(() => receiver.stop());
const DAY_MS = 24 * 60 * 60 * 1000;

for (const store of storesUnderTest()) {
  store.describe('webhooks on the webhook store', () => {
    const setUp = async () => {
      const clock = manualClock(Date.UTC(2026, 3, 1));
      const app = await store.app({ clock, env: LOCAL_WEBHOOKS });
      return { app, clock, ...(await tokensOf(app)) };
    };

    test('happy: create (201, Location), read, list, change, rotate, delete', async () => {
      const { app, owner } = await setUp();
      const res = await app.request('POST', '/listings/webhooks', {
        body: { url: receiver.url(), types: ['unit.created'], description: 'Portal ✓' },
        token: owner,
      });
      expect(res.status).toBe(201);
      const made = WebhookWithSecret.parse(res.body);
      expect(res.headers.get('location')).toBe(`/listings/webhooks/${made.id}`);
      expect(made).toMatchObject({
        types: ['unit.created'],
        description: 'Portal ✓',
        enabled: true,
        ownerId: 'owner-1',
        createdAt: new Date(app.clock()).toISOString(),
      });
      const path = `/listings/webhooks/${made.id}`;
      const { secret: _, ...shown } = made;
      expect(
        Webhook.strict().parse((await app.request('GET', path, { token: owner })).body),
      ).toEqual(shown);
      const patched = await app.request('PATCH', path, {
        body: { types: [], description: null, enabled: false },
        token: owner,
      });
      expect([patched.status, patched.body]).toMatchObject([
        200,
        { types: [], description: null, enabled: false },
      ]);
      const rotated = await app.request('POST', `${path}/rotate-secret`, { token: owner });
      expect(rotated.status).toBe(200);
      expect(SecretRotation.parse(rotated.body).previousSecretExpiresAt).toBe(
        new Date(app.clock() + DAY_MS).toISOString(),
      );
      const list = await app.request('GET', '/listings/webhooks', { token: owner });
      expect(WebhookList.parse(list.body).data.map((hook) => hook.id)).toEqual([made.id]);
      expect((await app.request('DELETE', path, { token: owner })).status).toBe(204);
      expect((await app.request('GET', path, { token: owner })).status).toBe(404);
    });

    test('happy: events are queued, signed and sent in order; the log and a redelivery', async () => {
      const { app, owner } = await setUp();
      await app.appendEvents(propertyEvent('before'));
      const made = WebhookWithSecret.parse(
        (
          await app.request('POST', '/listings/webhooks', {
            body: { url: receiver.url('/order') },
            token: owner,
          })
        ).body,
      );
      await app.appendEvents(
        propertyEvent('p1'),
        propertyEvent('theirs', 'owner-2'),
        propertyEvent('p1', 'owner-1', 'property.archived'),
      );
      const start = receiver.received.length;
      expect(await deliver(app)).toEqual({ queued: 2, attempted: 2, succeeded: 2, failed: 0 });
      const sent = receiver.received.slice(start);
      expect(sent.map((one) => JSON.parse(one.body).type)).toEqual([
        'property.created',
        'property.archived',
      ]);
      expect(verify(sent[0]!, made.secret, app.clock())).toMatchObject({
        type: 'property.created',
        data: { id: 'p1', note: 'señal "quoted" \\ ✓' },
      });
      expect(sent[0]!.headers['webhook-id']).toBe(cursorOf(2));
      const path = `/listings/webhooks/${made.id}/deliveries`;
      const log = DeliveryList.parse((await app.request('GET', path, { token: owner })).body).data;
      expect(log.map((one) => [one.eventId, one.status, one.attempts])).toEqual([
        [cursorOf(4), 'succeeded', 1],
        [cursorOf(2), 'succeeded', 1],
      ]);
      const again = await app.request('POST', `${path}/${log[1]!.id}/redeliver`, { token: owner });
      expect([again.status, again.body]).toMatchObject([202, { status: 'pending' }]);
      expect(await deliver(app)).toEqual({ queued: 0, attempted: 1, succeeded: 1, failed: 0 });
      expect(await deliver(app)).toEqual({ queued: 0, attempted: 0, succeeded: 0, failed: 0 });
    });

    test('happy: a failure is retried on the schedule; finished deliveries are pruned with the events', async () => {
      const { app, clock, owner } = await setUp();
      await app.request('POST', '/listings/webhooks', {
        body: { url: receiver.url('/flaky') },
        token: owner,
      });
      receiver.statuses.push(500);
      await app.appendEvents(propertyEvent('p1'));
      expect(await deliver(app)).toMatchObject({ queued: 1, attempted: 1, failed: 1 });
      expect(await deliver(app)).toMatchObject({ attempted: 0 });
      clock.advance(30_000);
      expect(await deliver(app)).toMatchObject({ attempted: 1, succeeded: 1 });
      clock.advance(31 * DAY_MS);
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 1, deliveries: 1 });
    });

    test('error: 404 for another customer’s endpoint, 409 past 20 endpoints, 404 for an unknown delivery', async () => {
      const { app, owner, other } = await setUp();
      const create = () =>
        app.request('POST', '/listings/webhooks', { body: { url: receiver.url() }, token: owner });
      const first = WebhookWithSecret.parse((await create()).body);
      for (let i = 1; i < 20; i++) expect((await create()).status).toBe(201);
      const over = await create();
      expect([over.status, over.body]).toEqual([409, problemOf(409)]);
      const path = `/listings/webhooks/${first.id}`;
      await expectHiddenFrom(app, path, other);
      const unknown = await app.request('POST', `${path}/deliveries/99/redeliver`, {
        token: owner,
      });
      expect(unknown.status).toBe(404);
    });

    test('auth: 401 without a token', async () => {
      const { app } = await setUp();
      expect((await app.request('GET', '/listings/webhooks')).status).toBe(401);
    });
  });
}
