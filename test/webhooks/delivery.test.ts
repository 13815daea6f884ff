import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import type { Event } from '@/events/schemas';
import { deliverWebhooks } from '@/webhooks/deliver';
import { DeliveryList, Webhook, WebhookWithSecret } from '@/webhooks/schemas';
import { kickDeliveriesOnEvents } from '@/workers/webhook-kick';
import { fullPage } from '../content/factory';
import { readAll } from '../events/support';
import { OTHER_OWNER, postProperty } from '../listings/support';
import { deliver, startReceiver, verify, webhooksContext } from './support';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const receiver = startReceiver();
afterAll(() => receiver.stop());

async function setUp(
  options: { token?: 'customer' | 'employee'; body?: Record<string, unknown> } = {},
) {
  const ctx = await webhooksContext();
  const token = ctx[options.token ?? 'employee'];
  // Tokens last an hour of the clock the tests move by days: a fresh one per call.
  const staff = () => ctx.tokenFor('employee-1', 'employee');
  receiver.received.length = 0;
  receiver.statuses.length = 0;
  receiver.answerWith(null);
  const res = await ctx.request('POST', '/listings/webhooks', {
    body: { url: receiver.url(), ...options.body },
    token,
  });
  expect(res.status).toBe(201);
  const endpoint = WebhookWithSecret.parse(res.body);
  const deliveries = async () =>
    DeliveryList.parse(
      (
        await ctx.request('GET', `/listings/webhooks/${endpoint.id}/deliveries`, {
          token: await staff(),
        })
      ).body,
    ).data;
  const create = async () => postProperty(ctx, {}, await staff());
  return { ctx, token, endpoint, deliveries, staff, create };
}

const bodyOf = (index: number) =>
  JSON.parse(receiver.received[index]!.body) as {
    type: string;
    timestamp: string;
    data: { id: string };
  };

describe('webhook delivery', () => {
  describe('happy', () => {
    test('every change made through the API arrives once, signed (standardwebhooks verifies each), as {type, timestamp, data}', async () => {
      const { ctx, endpoint, deliveries } = await setUp();
      const id = await postProperty(ctx);
      const unit = await ctx.request('POST', `/listings/properties/${id}/units`, {
        body: {},
        token: ctx.employee,
      });
      await ctx.request('PATCH', unit.headers.get('location')!, {
        body: { published: true },
        token: ctx.employee,
      });
      await ctx.request('PUT', `/listings/multi-listing-units/${id}`, {
        body: { counter: 3 },
        token: ctx.employee,
      });
      expect(await deliver(ctx)).toEqual({ queued: 4, attempted: 4, succeeded: 4, failed: 0 });
      const { events } = await readAll(ctx, ctx.employee);
      expect(receiver.received).toHaveLength(4);
      // Different resources go out side by side: matched by webhook-id, each exactly once.
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(
        new Set(events.map((event) => event.id)),
      );
      for (const received of receiver.received) {
        const event = events.find((candidate) => candidate.id === received.headers['webhook-id'])!;
        expect(verify(received, endpoint.secret, ctx.clock())).toEqual({
          type: event.type,
          timestamp: event.occurredAt,
          data: event.data,
        });
        expect(received.headers['webhook-id']).toBe(event.id);
        expect(received.headers['webhook-timestamp']).toBe(String(Math.floor(ctx.clock() / 1000)));
        expect(received.headers['content-type']).toBe('application/json');
      }
      // The two events of the unit arrive in order.
      expect(
        receiver.received
          .map((_, index) => bodyOf(index).type)
          .filter((type) => type.startsWith('unit.')),
      ).toEqual(['unit.created', 'unit.updated']);
      // Nothing new: nothing is sent again.
      expect(await deliver(ctx)).toEqual({ queued: 0, attempted: 0, succeeded: 0, failed: 0 });
      expect(receiver.received).toHaveLength(4);
      const log = await deliveries();
      expect(log.map((entry) => [entry.status, entry.attempts, entry.responseStatus])).toEqual(
        Array(4).fill(['succeeded', 1, 200]),
      );
      expect(log[0]).toMatchObject({
        nextAttemptAt: null,
        error: null,
        eventType: 'multi_listing_counter.updated',
      });
    });

    test('a large resource is named, never sent: additional data as {id}, a unit without features, a static page as {id, slug, language}', async () => {
      const { ctx, endpoint } = await setUp();
      const id = await postProperty(ctx);
      const fill = 'x'.repeat(60 * 1024);
      const put = await ctx.request('PUT', `/listings/properties/${id}/additional-data`, {
        body: { data: { fill } },
        token: ctx.employee,
      });
      expect(put.status).toBe(200);
      const feature = {
        applicability: 'unit',
        category: 'notes',
        name: 'long',
        value: 'y'.repeat(255),
      };
      const unit = await ctx.request('POST', `/listings/properties/${id}/units`, {
        body: { features: Array(50).fill(feature) },
        token: ctx.employee,
      });
      expect(unit.status).toBe(201);
      const unitId = unit.headers.get('location')!.split('/').pop()!;
      const page = await ctx.request('PUT', '/content/static-pages/about', {
        body: { ...fullPage(), content: 'z'.repeat(400 * 1024) },
        token: ctx.employee,
      });
      expect(page.status).toBe(201);
      expect(await deliver(ctx)).toMatchObject({ queued: 4, succeeded: 4 });
      const { events } = await readAll(ctx, ctx.employee);
      const pageId = events.at(-1)!.resource.id;
      const sent = receiver.received.map(
        (received) =>
          verify(received, endpoint.secret, ctx.clock()) as Pick<Event, 'type' | 'data'>,
      );
      // Different resources go out side by side: told apart by type.
      const byType = Object.fromEntries(sent.map((body) => [body.type, body.data]));
      expect(byType).toEqual({
        'property.created': events[0]!.data,
        'additional_data.updated': { id },
        'unit.created': {
          ...{ id: unitId, propertyId: id, rentable: true, published: false },
          ...{ deleted: false, deletedAt: null },
        },
        'static_page.published': { id: pageId, slug: 'about', language: 'en' },
      });
      // The feed answers the same data.
      expect(Object.fromEntries(events.map((event) => [event.type, event.data]))).toEqual(byType);
      for (const received of receiver.received) expect(received.body.length).toBeLessThan(1024);
    });

    test('an idle run takes no write lock: it finishes while another connection holds one', async () => {
      const { ctx } = await setUp();
      await postProperty(ctx);
      expect(await deliver(ctx)).toMatchObject({ queued: 1, succeeded: 1 });
      const other = new Database(ctx.config.databasePath);
      other.exec('PRAGMA busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      try {
        const run = await deliverWebhooks({
          store: ctx.deps.stores.webhooks,
          clock: ctx.clock,
          policy: ctx.config.webhooks,
          quotas: ctx.config.webhookQuotas,
        });
        expect(run).toEqual({ queued: 0, attempted: 0, succeeded: 0, failed: 0 });
      } finally {
        other.exec('ROLLBACK');
        other.close();
      }
    });

    test('the kick: new events go out at once (no clock move, no job tick), only while an endpoint is enabled', async () => {
      const { ctx, endpoint, staff } = await setUp();
      // Counts the kicks; the job itself runs as usual.
      const jobs = ctx.deps.jobs!;
      const runNow = jobs.runNow.bind(jobs);
      const kicks: string[] = [];
      jobs.runNow = (name) => {
        kicks.push(name);
        return runNow(name);
      };
      const stop = kickDeliveriesOnEvents(ctx.deps);
      try {
        const id = await postProperty(ctx);
        await receiver.receivedCount(1);
        expect(JSON.parse(receiver.received[0]!.body).data.id).toBe(id);
        expect(kicks).toEqual(['webhook-delivery']);
        await ctx.request('PATCH', `/listings/webhooks/${endpoint.id}`, {
          body: { enabled: false },
          token: await staff(),
        });
        await postProperty(ctx);
        // Two turns of the event loop: the announcement, then the kick it would start.
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        expect(kicks).toEqual(['webhook-delivery']);
      } finally {
        stop();
        jobs.runNow = runNow;
      }
    });

    test('types filter and customer scope: a customer endpoint gets only its own properties, of its types', async () => {
      const { ctx } = await setUp({ token: 'customer', body: { types: ['property.created'] } });
      const mine = await postProperty(ctx);
      await postProperty(ctx, { ownerId: OTHER_OWNER });
      await ctx.request('PUT', `/listings/properties/${mine}/convert`, {
        body: { type: 'studio' },
        token: ctx.employee,
      });
      await deliver(ctx);
      expect(
        receiver.received.map((_, index) => [bodyOf(index).type, bodyOf(index).data.id]),
      ).toEqual([['property.created', mine]]);
    });

    test('a receiver answering 500 three times, then 200, gets the event exactly once more, on the 30 s / 60 s / 2 min schedule', async () => {
      const { ctx, deliveries } = await setUp();
      receiver.statuses.push(500, 500, 500);
      await postProperty(ctx);
      const start = ctx.clock();
      expect(await deliver(ctx)).toMatchObject({ attempted: 1, failed: 1 });
      let [entry] = await deliveries();
      expect(entry).toMatchObject({
        status: 'pending',
        attempts: 1,
        responseStatus: 500,
        error: 'answered 500',
        nextAttemptAt: new Date(start + 30 * SECOND).toISOString(),
      });
      for (const [wait, nextWait] of [
        [30 * SECOND, 60 * SECOND],
        [60 * SECOND, 2 * MINUTE],
      ]) {
        ctx.clock.advance(wait! - 1);
        expect(await deliver(ctx)).toMatchObject({ attempted: 0 });
        ctx.clock.advance(1);
        expect(await deliver(ctx)).toMatchObject({ attempted: 1, failed: 1 });
        [entry] = await deliveries();
        expect(entry!.nextAttemptAt).toBe(new Date(ctx.clock() + nextWait!).toISOString());
      }
      ctx.clock.advance(2 * MINUTE);
      expect(await deliver(ctx)).toMatchObject({ attempted: 1, succeeded: 1 });
      [entry] = await deliveries();
      expect(entry).toMatchObject({
        status: 'succeeded',
        attempts: 4,
        responseStatus: 200,
        nextAttemptAt: null,
      });
      expect(receiver.received).toHaveLength(4);
      const ids = new Set(receiver.received.map((received) => received.headers['webhook-id']));
      expect(ids.size).toBe(1);
      ctx.clock.advance(HOUR);
      await deliver(ctx);
      expect(receiver.received).toHaveLength(4);
    });

    test('in order per resource: a later event of a resource waits while an earlier one retries; other resources go on', async () => {
      const { ctx } = await setUp();
      receiver.statuses.push(503);
      const first = await postProperty(ctx);
      await ctx.request('PUT', `/listings/properties/${first}/convert`, {
        body: { type: 'studio' },
        token: ctx.employee,
      });
      const second = await postProperty(ctx);
      expect(await deliver(ctx)).toMatchObject({ attempted: 2, succeeded: 1, failed: 1 });
      expect(
        receiver.received.map((_, index) => [bodyOf(index).type, bodyOf(index).data.id]),
      ).toEqual([
        ['property.created', first],
        ['property.created', second],
      ]);
      ctx.clock.advance(30 * SECOND);
      expect(await deliver(ctx)).toMatchObject({ attempted: 2, succeeded: 2 });
      expect(receiver.received.slice(2).map((_, index) => bodyOf(index + 2).type)).toEqual([
        'property.created',
        'property.converted',
      ]);
    });

    test('a rotated secret: both sign for 24 hours, then only the new one', async () => {
      const { ctx, endpoint, create } = await setUp();
      const rotated = await ctx.request<{ secret: string }>(
        'POST',
        `/listings/webhooks/${endpoint.id}/rotate-secret`,
        {
          token: ctx.employee,
        },
      );
      await postProperty(ctx);
      await deliver(ctx);
      const [during] = receiver.received;
      expect(verify(during!, endpoint.secret, ctx.clock())).toBeDefined();
      expect(verify(during!, rotated.body.secret, ctx.clock())).toBeDefined();
      ctx.clock.advance(24 * HOUR);
      await create();
      await deliver(ctx);
      const after = receiver.received[1]!;
      expect(verify(after, rotated.body.secret, ctx.clock())).toBeDefined();
      expect(() => verify(after, endpoint.secret, ctx.clock())).toThrow();
    });

    test('redeliver: queued again, sent with the same webhook-id on the next run', async () => {
      const { ctx, endpoint, deliveries } = await setUp();
      await postProperty(ctx);
      await deliver(ctx);
      const [entry] = await deliveries();
      const res = await ctx.request(
        'POST',
        `/listings/webhooks/${endpoint.id}/deliveries/${entry!.id}/redeliver`,
        { token: ctx.employee },
      );
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ id: entry!.id, status: 'pending', attempts: 1 });
      expect(await deliver(ctx)).toMatchObject({ queued: 0, attempted: 1, succeeded: 1 });
      expect(receiver.received.map((received) => received.headers['webhook-id'])).toEqual([
        entry!.eventId,
        entry!.eventId,
      ]);
      expect((await deliveries())[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    });
  });

  describe('failures', () => {
    test('failing for 24 hours: retried hourly after 5 min, then given up and the endpoint disabled with its reason', async () => {
      const { ctx, endpoint, deliveries, staff, create } = await setUp();
      receiver.answerWith(() => new Response('no', { status: 500 }));
      await postProperty(ctx);
      const start = ctx.clock();
      let attempts = 0;
      for (let i = 0; i < 40; i++) {
        const run = await deliver(ctx);
        attempts += run.attempted as number;
        const [entry] = await deliveries();
        if (entry!.status !== 'pending') break;
        ctx.clock.set(Date.parse(entry!.nextAttemptAt!));
      }
      // 30 s, 60 s, 2 min and 5 min, then hourly, the last at 24 hours: 29 attempts.
      const offsets = receiver.received.map(
        (received) =>
          Number(received.headers['webhook-timestamp']) * 1000 - Math.floor(start / 1000) * 1000,
      );
      expect(offsets.slice(0, 6)).toEqual([0, 30, 90, 210, 510, 510 + 3600].map((s) => s * SECOND));
      expect(offsets.slice(-2)).toEqual([510 + 23 * 3600, 24 * 3600].map((s) => s * SECOND));
      expect(attempts).toBe(29);
      const [entry] = await deliveries();
      expect(entry).toMatchObject({ status: 'failed', attempts: 29, nextAttemptAt: null });
      const read = Webhook.parse(
        (await ctx.request('GET', `/listings/webhooks/${endpoint.id}`, { token: await staff() }))
          .body,
      );
      expect(read.enabled).toBe(false);
      expect(read.disabledReason).toBe(
        `Disabled at ${new Date(ctx.clock()).toISOString()}: every delivery attempt failed since ${new Date(start).toISOString()}; last: answered 500`,
      );
      // While disabled nothing is queued or sent; enabling starts again from now.
      await create();
      expect(await deliver(ctx)).toMatchObject({ queued: 0, attempted: 0 });
      receiver.answerWith(null);
      const enabled = await ctx.request('PATCH', `/listings/webhooks/${endpoint.id}`, {
        body: { enabled: true },
        token: await staff(),
      });
      expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null });
      const fresh = await create();
      expect(await deliver(ctx)).toMatchObject({ queued: 1, attempted: 1, succeeded: 1 });
      expect(JSON.parse(receiver.received.at(-1)!.body).data.id).toBe(fresh);
    });

    test('no redirect is followed: a 3xx is a failed attempt and its target is never called', async () => {
      const { ctx, deliveries } = await setUp();
      receiver.answerWith((request) =>
        new URL(request.url).pathname === '/hook'
          ? new Response(null, { status: 307, headers: { location: receiver.url('/elsewhere') } })
          : new Response('ok'),
      );
      await postProperty(ctx);
      expect(await deliver(ctx)).toMatchObject({ attempted: 1, failed: 1 });
      expect(receiver.received.map((received) => received.path)).toEqual(['/hook']);
      expect((await deliveries())[0]).toMatchObject({ responseStatus: 307, error: 'answered 307' });
    });

    test('an attempt without an answer in time fails and is retried', async () => {
      const { ctx, deliveries } = await setUp();
      const hold = Promise.withResolvers<Response>();
      receiver.answerWith(() => hold.promise);
      await postProperty(ctx);
      const run = await deliverWebhooks({
        store: ctx.deps.stores.webhooks,
        clock: ctx.clock,
        policy: ctx.config.webhooks,
        quotas: ctx.config.webhookQuotas,
        timeoutMs: 50,
      });
      hold.resolve(new Response('late'));
      expect(run).toMatchObject({ attempted: 1, failed: 1 });
      expect((await deliveries())[0]).toMatchObject({
        status: 'pending',
        responseStatus: null,
        error: 'no answer within 0.05 s',
      });
    });

    test('the address is checked again at delivery: without the flag a private address is refused and never called', async () => {
      const { ctx, deliveries } = await setUp();
      await postProperty(ctx);
      const run = await deliverWebhooks({
        store: ctx.deps.stores.webhooks,
        clock: ctx.clock,
        policy: { allowHttp: true, allowPrivate: false },
        quotas: ctx.config.webhookQuotas,
      });
      expect(run).toMatchObject({ attempted: 1, failed: 1 });
      expect(receiver.received).toHaveLength(0);
      expect((await deliveries())[0]).toMatchObject({
        error: 'refused: address not allowed',
        responseStatus: null,
        durationMs: 0,
      });
    });
  });
});
