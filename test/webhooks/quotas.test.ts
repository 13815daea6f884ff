import { afterAll, expect, test } from 'bun:test';
import { AuditPage } from '@/audit/schemas';
import { cursorOf } from '@/events/cursor';
import { BACKLOG_GIVEN_UP, EVENT_NOT_KEPT } from '@/webhooks/deliveries';
import { OVERDUE_GIVEN_UP } from '@/webhooks/queue-rules';
import { DeliveryList, Webhook, WebhookList, WebhookWithSecret } from '@/webhooks/schemas';
import * as eventsPrune from '@/workers/events-prune';
import { propertyEvent, storesUnderTest, tokensOf } from '../events/stores';
import { manualClock, problemOf } from '../support/harness';
import { deliver, LOCAL_WEBHOOKS, startReceiver } from './support';

const receiver = startReceiver();
afterAll(() => receiver.stop());
const DAY_MS = 24 * 60 * 60 * 1000;

for (const store of storesUnderTest()) {
  store.describe('webhook storage and quotas', () => {
    const setUp = async (env: Record<string, string> = {}) => {
      const clock = manualClock(Date.UTC(2026, 3, 1));
      const app = await store.app({ clock, env: { ...LOCAL_WEBHOOKS, ...env } });
      let tokens = await tokensOf(app);
      /** New tokens, for after the clock has outrun the old ones; the helpers take them up. */
      const renew = async () => {
        tokens = await tokensOf(app);
        return tokens;
      };
      const create = async (token = tokens.owner, path = '/hook') =>
        WebhookWithSecret.parse(
          (
            await app.request('POST', '/listings/webhooks', {
              body: { url: receiver.url(path) },
              token,
            })
          ).body,
        );
      const log = async (id: string, token = tokens.owner) =>
        DeliveryList.parse(
          (await app.request('GET', `/listings/webhooks/${id}/deliveries`, { token })).body,
        ).data;
      const endpoint = async (id: string, token = tokens.owner) =>
        Webhook.parse((await app.request('GET', `/listings/webhooks/${id}`, { token })).body);
      const securityLog = async (token = tokens.owner) =>
        AuditPage.parse((await app.request('GET', '/auth/security-log', { token })).body).events;
      return { app, clock, ...tokens, renew, create, log, endpoint, securityLog };
    };
    const events = (count: number, prefix = 'p') =>
      Array.from({ length: count }, (_, i) => propertyEvent(`${prefix}${i}`));

    test('every attempt and a redelivery send the same bytes, built from the event row', async () => {
      const { app, clock, owner, create, log } = await setUp();
      const hook = await create(undefined, '/same-bytes');
      await app.appendEvents(propertyEvent('p1'));
      receiver.statuses.push(500);
      const start = receiver.received.length;
      expect(await deliver(app)).toMatchObject({ queued: 1, attempted: 1, failed: 1 });
      clock.advance(30_000);
      expect(await deliver(app)).toMatchObject({ attempted: 1, succeeded: 1 });
      const [delivery] = await log(hook.id);
      const again = await app.request(
        'POST',
        `/listings/webhooks/${hook.id}/deliveries/${delivery!.id}/redeliver`,
        { token: owner },
      );
      expect(again.status).toBe(202);
      expect(await deliver(app)).toMatchObject({ attempted: 1, succeeded: 1 });
      const bodies = receiver.received.slice(start).map((one) => one.body);
      const occurredAt = new Date(Date.UTC(2026, 3, 1)).toISOString();
      expect(bodies).toEqual(
        Array(3).fill(
          `{"type":"property.created","timestamp":"${occurredAt}","data":{"id":"p1","note":"señal \\"quoted\\" \\\\ ✓"}}`,
        ),
      );
    });

    test('an event pruned before its delivery was sent: never sent, the delivery failed with the reason, then gone', async () => {
      const { app, clock, owner, renew, create, log } = await setUp();
      const hook = await create(undefined, '/pruned');
      // Disabled: its delivery stays pending past the events' retention.
      await app.appendEvents(propertyEvent('p1'));
      await app.deps.stores.webhooks.fanOut(clock(), app.config.webhookQuotas);
      await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
        body: { enabled: false },
        token: owner,
      });
      clock.advance(31 * DAY_MS);
      const enabled = await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
        body: { enabled: true },
        token: (await renew()).owner,
      });
      expect(enabled.status).toBe(200);
      // The events pruned, their deliveries not yet: it is not due, nothing is sent.
      expect(await app.deps.stores.events.pruneEvents(clock() - 30 * DAY_MS)).toBe(1);
      const start = receiver.received.length;
      expect(await deliver(app)).toEqual({ queued: 0, attempted: 0, succeeded: 0, failed: 0 });
      expect(receiver.received.length).toBe(start);
      expect(await log(hook.id)).toMatchObject([{ status: 'pending', attempts: 0 }]);
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 0, deliveries: 0 });
      expect(await log(hook.id)).toMatchObject([
        { eventId: cursorOf(1), status: 'failed', attempts: 0, error: EVENT_NOT_KEPT },
      ]);
      // The next prune deletes it, as it deletes every finished delivery whose event is gone.
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 0, deliveries: 1 });
      expect(await log(hook.id)).toEqual([]);
    });

    test('a delivery due for 7 days without an attempt (its endpoint disabled): given up at the next prune, not sent once enabled again', async () => {
      const { app, clock, owner, renew, create, log, endpoint } = await setUp();
      const hook = await create(undefined, '/overdue');
      await app.appendEvents(propertyEvent('p1'), propertyEvent('p1'));
      await app.deps.stores.webhooks.fanOut(clock(), app.config.webhookQuotas);
      await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
        body: { enabled: false },
        token: owner,
      });
      // Due for exactly 7 days: both stay pending.
      clock.advance(7 * DAY_MS);
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 0, deliveries: 0 });
      expect((await log(hook.id, (await renew()).owner)).map((one) => one.status)).toEqual([
        'pending',
        'pending',
      ]);
      clock.advance(1);
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 0, deliveries: 0 });
      const tokens = await renew();
      expect((await log(hook.id, tokens.owner)).map((one) => [one.status, one.error])).toEqual([
        ['failed', OVERDUE_GIVEN_UP],
        ['failed', OVERDUE_GIVEN_UP],
      ]);
      const enabled = await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
        body: { enabled: true },
        token: tokens.owner,
      });
      expect(enabled.status).toBe(200);
      expect((await endpoint(hook.id, tokens.owner)).enabled).toBe(true);
      const start = receiver.received.length;
      expect(await deliver(app)).toEqual({ queued: 0, attempted: 0, succeeded: 0, failed: 0 });
      expect(receiver.received.length).toBe(start);
    });

    test('quota: past WEBHOOK_PENDING_DELIVERIES_PER_ENDPOINT the endpoint is disabled, its backlog given up, its owner told; re-enabled it starts at the current event', async () => {
      const { app, owner, create, endpoint, log, securityLog } = await setUp({
        WEBHOOK_PENDING_DELIVERIES_PER_ENDPOINT: '3',
      });
      receiver.answerWith(() => new Response('down', { status: 503 }));
      try {
        const hook = await create(undefined, '/backlog');
        await app.appendEvents(...events(2, 'a'));
        expect(await deliver(app)).toMatchObject({ queued: 2, failed: 2 });
        // The third fits; a fourth would pass the quota.
        await app.appendEvents(propertyEvent('b0'));
        expect(await deliver(app)).toMatchObject({ queued: 1 });
        expect((await log(hook.id)).map((one) => one.status)).toEqual(Array(3).fill('pending'));
        await app.appendEvents(propertyEvent('c0'));
        expect(await deliver(app)).toMatchObject({ queued: 0, attempted: 0 });
        expect((await log(hook.id)).map((one) => [one.eventId, one.status, one.error])).toEqual(
          [3, 2, 1].map((id) => [cursorOf(id), 'failed', BACKLOG_GIVEN_UP]),
        );
        const disabled = await endpoint(hook.id);
        expect(disabled.enabled).toBe(false);
        expect(disabled.disabledReason).toBe(
          `Disabled at ${new Date(app.clock()).toISOString()}: more than 3 deliveries would have been waiting to be sent, the most an endpoint may have; the pending ones were given up and no later event was queued (read them from the feed with after=${cursorOf(0)})`,
        );
        expect(await securityLog()).toMatchObject([
          {
            action: 'webhook.disabled',
            actor: null,
            subject: 'owner-1',
            target: hook.id,
            details: { cause: 'backlog', reason: disabled.disabledReason },
          },
        ]);
        // Nothing is queued while it is off.
        await app.appendEvents(propertyEvent('c1'));
        expect(await deliver(app)).toMatchObject({ queued: 0 });
        receiver.answerWith(null);
        const patched = await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
          body: { enabled: true },
          token: owner,
        });
        expect(patched.body).toMatchObject({ enabled: true, disabledReason: null });
        await app.appendEvents(propertyEvent('d0'));
        expect(await deliver(app)).toEqual({ queued: 1, attempted: 1, succeeded: 1, failed: 0 });
      } finally {
        receiver.answerWith(null);
      }
    });

    test('quota: an endpoint keeps its newest WEBHOOK_FINISHED_DELIVERIES_KEPT_PER_ENDPOINT finished deliveries, never a pending one', async () => {
      const { app, clock, create, log } = await setUp({
        WEBHOOK_FINISHED_DELIVERIES_KEPT_PER_ENDPOINT: '2',
      });
      const hook = await create(undefined, '/kept');
      await app.appendEvents(...events(4, 'a'));
      expect(await deliver(app)).toMatchObject({ queued: 4, succeeded: 4 });
      receiver.answerWith(() => new Response('down', { status: 500 }));
      try {
        // Queuing trims: 2 of the 4 finished stay, and the new pending one.
        await app.appendEvents(propertyEvent('b0'));
        expect(await deliver(app)).toMatchObject({ queued: 1, failed: 1 });
        expect((await log(hook.id)).map((one) => [one.eventId, one.status])).toEqual([
          [cursorOf(5), 'pending'],
          [cursorOf(4), 'succeeded'],
          [cursorOf(3), 'succeeded'],
        ]);
      } finally {
        receiver.answerWith(null);
      }
      clock.advance(30_000);
      expect(await deliver(app)).toMatchObject({ succeeded: 1 });
      // The prune trims endpoints that nothing was queued for.
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 0, deliveries: 1 });
      expect((await log(hook.id)).map((one) => one.eventId)).toEqual([cursorOf(5), cursorOf(4)]);
    });

    test('quota: WEBHOOK_ENDPOINTS_PER_CUSTOMER endpoints, one more is a 409 that stores nothing', async () => {
      const { app, owner, employee, create } = await setUp({ WEBHOOK_ENDPOINTS_PER_CUSTOMER: '2' });
      await create();
      await create();
      const over = await app.request('POST', '/listings/webhooks', {
        body: { url: receiver.url() },
        token: owner,
      });
      expect([over.status, over.body]).toEqual([409, problemOf(409)]);
      const list = await app.request('GET', '/listings/webhooks', { token: owner });
      expect(WebhookList.parse(list.body).data).toHaveLength(2);
      // Employees have no limit.
      for (let i = 0; i < 3; i++) await create(employee);
    });

    test('failing for 24 hours: disabled with a webhook.disabled event, in the owner’s security log; an employee’s in the audit log only', async () => {
      const { app, clock, employee, renew, create, endpoint, securityLog } = await setUp();
      receiver.answerWith(() => new Response('down', { status: 500 }));
      try {
        const mine = await create(undefined, '/failing');
        const staff = await create(employee, '/failing');
        await app.appendEvents(propertyEvent('p1'));
        for (let hours = 0; hours <= 24; hours++) {
          await deliver(app);
          clock.advance(60 * 60 * 1000);
        }
        // The day outlived the tokens.
        const fresh = await renew();
        const reason = (await endpoint(mine.id, fresh.owner)).disabledReason;
        expect(reason).toStartWith('Disabled at ');
        expect(await securityLog(fresh.owner)).toMatchObject([
          {
            action: 'webhook.disabled',
            actor: null,
            subject: 'owner-1',
            target: mine.id,
            details: { cause: 'failing', reason },
          },
        ]);
        const audit = await app.deps.stores.audit.searchAudit({ action: 'webhook.disabled' });
        const disabled = audit.events.map((event) => [event.subject, event.target]);
        expect(disabled.sort()).toEqual(
          [
            [null, staff.id],
            ['owner-1', mine.id],
          ].sort(),
        );
        expect(await securityLog(fresh.employee)).toEqual([]);
      } finally {
        receiver.answerWith(null);
      }
    });
  });
}
