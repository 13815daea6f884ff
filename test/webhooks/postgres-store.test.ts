import { describe, expect, test } from 'bun:test';
import type { Caller } from '@/auth/tokens';
import { parseConfig } from '@/config';
import { postgresEventStore } from '@/events/postgres-store';
import { postgresWebhookStore } from '@/webhooks/postgres-store';
import { pgSuiteDatabase, propertyEvent } from '../events/stores';
import { pgSuite, postgresAvailable } from '../support/postgres';

const owner = { sub: 'owner-1', aud: 'customer' } as Caller;
const NOW = Date.UTC(2026, 3, 1);
const { webhookQuotas: quotas } = parseConfig({ DATABASE_PATH: ':memory:' });
const ok = { ok: true, responseStatus: 200, durationMs: 3, error: null };

describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL webhook store'), () => {
  const { connect } = pgSuiteDatabase();

  /** Two instances' stores on an empty database. */
  async function instances() {
    const admin = connect();
    await admin`TRUNCATE events, webhook_endpoints, webhook_deliveries RESTART IDENTITY CASCADE`;
    return {
      admin,
      events: postgresEventStore(admin),
      a: postgresWebhookStore(connect()),
      b: postgresWebhookStore(connect()),
    };
  }

  const endpointInput = { url: 'https://93.184.215.14/hooks' };

  const CLAIM = 60_000;

  test('two instances claiming at once: one attempt per endpoint in flight, on one instance; the claim ends with its release or when it lapses', async () => {
    const { events, a, b } = await instances();
    const endpoints = [];
    for (let i = 0; i < 4; i++)
      endpoints.push(
        await a.createEndpoint(owner, endpointInput, NOW, quotas.endpointsPerCustomer),
      );
    await events.appendEvents(
      Array.from({ length: 8 }, (_, i) => ({ event: propertyEvent(`p${i}`), now: NOW })),
    );
    expect(await a.fanOut(NOW, quotas)).toBe(32);
    const due = await b.dueEndpoints(NOW, 100, false);
    expect(due.map((row) => row.endpointId).sort()).toEqual(endpoints.map((e) => e.id).sort());
    expect(due.every((row) => row.ownerId === 'owner-1')).toBe(true);
    // Each instance tries every endpoint twice at once: each endpoint is claimed exactly once.
    const tries = await Promise.all(
      endpoints.flatMap((endpoint) =>
        [a, b, a, b].map((store) =>
          Promise.resolve(store.claimDelivery(endpoint.id, NOW, NOW + CLAIM)),
        ),
      ),
    );
    const claimed = tries.filter((claim) => claim !== null);
    expect(claimed.map((claim) => claim.endpoint.id).sort()).toEqual(
      endpoints.map((e) => e.id).sort(),
    );
    // Claimed: no endpoint is due for anyone, nor claimable, before the claim lapses.
    expect(await a.dueEndpoints(NOW + CLAIM - 1, 100, false)).toEqual([]);
    expect(await b.claimDelivery(endpoints[0]!.id, NOW + CLAIM - 1, NOW + 2 * CLAIM)).toBeNull();
    // Recorded and released: the endpoint's next delivery may go, on any instance.
    const [first, ...rest] = claimed;
    await a.recordAttempt(first!.delivery.id, ok, NOW);
    await b.releaseEndpoint(first!.endpoint.id, NOW + 1); // not its claim: nothing changes
    expect(await a.dueEndpoints(NOW, 100, false)).toEqual([]);
    await a.releaseEndpoint(first!.endpoint.id, NOW + CLAIM);
    const next = await b.claimDelivery(first!.endpoint.id, NOW, NOW + CLAIM);
    expect(next!.delivery.id).not.toBe(first!.delivery.id);
    // The claimers died: every endpoint is due again once the claims lapse.
    const lapsed = await b.dueEndpoints(NOW + CLAIM, 100, false);
    expect(lapsed.map((row) => row.endpointId).sort()).toEqual(endpoints.map((e) => e.id).sort());
    const again = await b.claimDelivery(rest[0]!.endpoint.id, NOW + CLAIM, NOW + 2 * CLAIM);
    expect(again!.delivery.id).toBe(rest[0]!.delivery.id);
  });

  test('one resource’s deliveries go one at a time, in order; an endpoint with nothing due is not left claimed', async () => {
    const { events, a, b } = await instances();
    const endpoint = await a.createEndpoint(owner, endpointInput, NOW, quotas.endpointsPerCustomer);
    await events.appendEvents([
      { event: propertyEvent('p'), now: NOW },
      { event: propertyEvent('p', 'owner-1', 'property.archived'), now: NOW },
    ]);
    await a.fanOut(NOW, quotas);
    const first = await a.claimDelivery(endpoint.id, NOW, NOW + CLAIM);
    expect(first!.delivery.eventType).toBe('property.created');
    await a.recordAttempt(first!.delivery.id, { ...ok, ok: false, error: 'answered 500' }, NOW);
    await a.releaseEndpoint(endpoint.id, NOW + CLAIM);
    // The created event retries in 30 s: the archived one waits behind it.
    expect(await b.claimDelivery(endpoint.id, NOW, NOW + CLAIM)).toBeNull();
    expect(await b.dueEndpoints(NOW, 10, false)).toEqual([]);
    const retry = await b.claimDelivery(endpoint.id, NOW + 30_000, NOW + 30_000 + CLAIM);
    expect(retry!.delivery.eventType).toBe('property.created');
    await b.recordAttempt(retry!.delivery.id, ok, NOW + 30_000);
    await b.releaseEndpoint(endpoint.id, NOW + 30_000 + CLAIM);
    const second = await a.claimDelivery(endpoint.id, NOW + 30_000, NOW + 30_000 + CLAIM);
    expect(second!.delivery.eventType).toBe('property.archived');
  });

  test('two instances fanning out at once queue each event once', async () => {
    const { admin, events, a, b } = await instances();
    await a.createEndpoint(owner, endpointInput, NOW, quotas.endpointsPerCustomer);
    await events.appendEvents(
      Array.from({ length: 1200 }, (_, i) => ({ event: propertyEvent(`p${i}`), now: NOW })),
    );
    const [x, y] = await Promise.all([a.fanOut(NOW, quotas), b.fanOut(NOW, quotas)]);
    expect(x + y).toBe(1200);
    const [row] = await admin`SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS d
      FROM webhook_deliveries`;
    expect(row).toEqual({ n: 1200, d: 1200 });
  });

  test('creates at once past the limit: exactly 20 stored, the rest answered with the 409', async () => {
    const { a, b } = await instances();
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).createEndpoint(owner, endpointInput, NOW + i, quotas.endpointsPerCustomer),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(
      quotas.endpointsPerCustomer,
    );
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused.map((result) => (result.reason as { code: string }).code)).toEqual(
      Array(10).fill('webhook.limit_reached'),
    );
    expect(await a.listEndpoints(owner)).toHaveLength(quotas.endpointsPerCustomer);
  });

  test('an endpoint id holding NUL is not found, without a query failing', async () => {
    const { a } = await instances();
    await expect(Promise.resolve(a.getEndpoint(owner, 'x\u0000y'))).rejects.toMatchObject({
      code: 'webhook.not_found',
    });
  });
});
