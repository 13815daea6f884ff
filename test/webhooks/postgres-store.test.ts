import { describe, expect, test } from 'bun:test';
import type { Caller } from '@/auth/tokens';
import { parseConfig } from '@/config';
import { postgresEventStore } from '@/events/postgres-store';
import { CLAIM_MS, postgresWebhookStore } from '@/webhooks/postgres-store';
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

  test('two instances asking for due deliveries at once get different ones; a claim ends with the attempt or after CLAIM_MS', async () => {
    const { events, a, b } = await instances();
    await a.createEndpoint(owner, endpointInput, NOW, quotas.endpointsPerCustomer);
    await events.appendEvents(
      Array.from({ length: 40 }, (_, i) => ({ event: propertyEvent(`p${i}`), now: NOW })),
    );
    expect(await a.fanOut(NOW, quotas)).toBe(40);
    const [mine, theirs] = await Promise.all([a.dueDeliveries(NOW, 25), b.dueDeliveries(NOW, 25)]);
    const ids = [...mine, ...theirs].map((due) => due.delivery.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    // Claimed: due for nobody now, nor for anyone before the claim lapses.
    expect(await a.dueDeliveries(NOW, 100)).toEqual([]);
    expect(await b.dueDeliveries(NOW + CLAIM_MS - 1, 100)).toEqual([]);
    for (const due of mine) await a.recordAttempt(due.delivery.id, ok, NOW + 1);
    // The claimer of the rest died: they are due again once the claim lapses, and only then.
    const lapsed = await b.dueDeliveries(NOW + CLAIM_MS, 100);
    expect(lapsed.map((due) => due.delivery.id).sort((x, y) => x - y)).toEqual(
      theirs.map((due) => due.delivery.id).sort((x, y) => x - y),
    );
  });

  test('one resource’s deliveries go one at a time, in order, even across instances', async () => {
    const { events, a, b } = await instances();
    await a.createEndpoint(owner, endpointInput, NOW, quotas.endpointsPerCustomer);
    await events.appendEvents([
      { event: propertyEvent('p'), now: NOW },
      { event: propertyEvent('p', 'owner-1', 'property.archived'), now: NOW },
    ]);
    await a.fanOut(NOW, quotas);
    const [first, second] = await Promise.all([a.dueDeliveries(NOW, 10), b.dueDeliveries(NOW, 10)]);
    expect([...first, ...second].map((due) => due.delivery.eventType)).toEqual([
      'property.created',
    ]);
    await a.recordAttempt([...first, ...second][0]!.delivery.id, ok, NOW);
    expect((await b.dueDeliveries(NOW, 10)).map((due) => due.delivery.eventType)).toEqual([
      'property.archived',
    ]);
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
