import type { Statement } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '@/db/sqlite/client';
import { cursorOf } from '@/events/cursor';
import { BACKLOG_GIVEN_UP } from '@/webhooks/deliveries';
import { dueEndpoints } from '@/webhooks/postgres-store';
import { nextDelivery } from '@/webhooks/postgres-tables';
import { DeliveryList, Webhook, WebhookWithSecret } from '@/webhooks/schemas';
import * as eventsPrune from '@/workers/events-prune';
import { type EventsTestApp, propertyEvent, storesUnderTest, tokensOf } from '../events/stores';
import { manualClock } from '../support/harness';
import { deliver, LOCAL_WEBHOOKS, startReceiver } from './support';

const receiver = startReceiver();
afterAll(() => receiver.stop());
const DAY_MS = 24 * 60 * 60 * 1000;
/** Whether a pending delivery `d` has an earlier pending one of its resource: it must wait (`blocked`). */
const EARLIER = `EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
  AND p.resource = d.resource AND p.status = 'pending' AND p.id < d.id)`;

/** Endpoints and deliveries of one customer's backlog in the plan tests. */
const ENDPOINTS = 20;
const BACKLOG = 500;

/** `owner-1`'s endpoints with `BACKLOG` pending deliveries each (none attempted), queued by the fan-out. */
async function backlogOf(app: EventsTestApp) {
  const { owner } = await tokensOf(app);
  const ids: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const res = await app.request('POST', '/listings/webhooks', {
      body: { url: receiver.url(`/backlog-${i}`) },
      token: owner,
    });
    ids.push(WebhookWithSecret.parse(res.body).id);
  }
  await app.appendEvents(
    ...Array.from({ length: BACKLOG }, (_, i) =>
      // Every fifth event is of a resource seen before: those wait behind it.
      propertyEvent(i % 5 === 4 ? `p${i - 1}` : `p${i}`),
    ),
  );
  expect(await app.deps.stores.webhooks.fanOut(app.clock(), app.config.webhookQuotas)).toBe(
    ENDPOINTS * BACKLOG,
  );
  return ids;
}

/**
 * The plans of the statements `work` prepares on the SQLite connection,
 * each line `EXPLAIN QUERY PLAN` gives (bound parameters do not change a
 * plan on a database without statistics).
 */
function plansOf(db: Db, work: () => unknown): string[] {
  const client = db.$client;
  const seen: string[] = [];
  const query = client.query.bind(client);
  const prepare = client.prepare.bind(client);
  client.query = ((sql: string) => {
    seen.push(sql);
    return query(sql);
  }) as typeof client.query;
  client.prepare = ((sql: string, ...rest: []) => {
    seen.push(sql);
    return prepare(sql, ...rest);
  }) as typeof client.prepare;
  try {
    work();
  } finally {
    client.query = query;
    client.prepare = prepare;
  }
  return seen
    .filter((sql) => /^\s*(SELECT|UPDATE|DELETE|INSERT)/i.test(sql))
    .flatMap((sql) =>
      (prepare(`EXPLAIN QUERY PLAN ${sql}`) as Statement<{ detail: string }>)
        .all()
        .map((row) => row.detail),
    );
}

for (const store of storesUnderTest()) {
  store.describe('webhook scheduling', () => {
    const setUp = (env: Record<string, string> = {}) =>
      store.app({ clock: manualClock(Date.UTC(2026, 3, 1)), env: { ...LOCAL_WEBHOOKS, ...env } });

    test('quota: past WEBHOOK_PENDING_DELIVERIES_PER_OWNER the largest backlog of the customer’s endpoints is given up and its endpoint disabled; the others queue on; employees’ endpoints have the per-endpoint quota only', async () => {
      const app = await setUp({
        WEBHOOK_PENDING_DELIVERIES_PER_OWNER: '4',
        WEBHOOK_PENDING_DELIVERIES_PER_ENDPOINT: '100',
      });
      const { owner, employee } = await tokensOf(app);
      const create = async (token: string, body: Record<string, unknown>) =>
        WebhookWithSecret.parse(
          (await app.request('POST', '/listings/webhooks', { body, token })).body,
        );
      // The employee may read every endpoint.
      const log = async (id: string) =>
        DeliveryList.parse(
          (await app.request('GET', `/listings/webhooks/${id}/deliveries`, { token: employee }))
            .body,
        ).data;
      const endpoint = async (id: string) =>
        Webhook.parse(
          (await app.request('GET', `/listings/webhooks/${id}`, { token: employee })).body,
        );
      receiver.answerWith(() => new Response('down', { status: 503 }));
      try {
        const down = await create(owner, { url: receiver.url('/owner-down') });
        const archives = await create(owner, {
          url: receiver.url('/owner-archives'),
          types: ['property.archived'],
        });
        const staff = await create(employee, { url: receiver.url('/staff') });
        await app.appendEvents(propertyEvent('a'), propertyEvent('b'), propertyEvent('c'));
        expect(await deliver(app)).toMatchObject({ queued: 6, failed: 6 });
        // Two archives: 3 + 2 + 2 would pass the customer's 4, whichever endpoint queues first.
        await app.appendEvents(
          propertyEvent('a', 'owner-1', 'property.archived'),
          propertyEvent('b', 'owner-1', 'property.archived'),
        );
        expect(await deliver(app)).toMatchObject({ queued: 4 });
        const disabled = await endpoint(down.id);
        expect(disabled).toMatchObject({ enabled: false });
        expect(disabled.disabledReason).toBe(
          `Disabled at ${new Date(app.clock()).toISOString()}: its account's endpoints would have had more than 4 deliveries waiting to be sent, the most an account may have, and this endpoint had the most of them; the pending ones were given up and no later event was queued (read them from the feed with after=${cursorOf(0)})`,
        );
        expect((await log(down.id)).map((one) => [one.status, one.error])).toEqual(
          Array(3).fill(['failed', BACKLOG_GIVEN_UP]),
        );
        expect(await endpoint(archives.id)).toMatchObject({ enabled: true });
        expect((await log(archives.id)).map((one) => one.status)).toEqual(['pending', 'pending']);
        // The employee's endpoint holds all 5, more than a customer may.
        expect(await endpoint(staff.id)).toMatchObject({ enabled: true });
        expect((await log(staff.id)).map((one) => one.status)).toEqual(Array(5).fill('pending'));
      } finally {
        receiver.answerWith(null);
      }
    });

    test('each endpoint’s count of pending deliveries, next due time and blocked deliveries follow every change: queued, failed, retried, sent, redelivered, their event pruned', async () => {
      const app = await setUp();
      const rows = async (sql: string) =>
        app.client ? [...(await app.client.unsafe(sql))] : app.db!.$client.query(sql).all();
      /** Each endpoint's columns against what its deliveries say. */
      const drift = async () =>
        (
          (await rows(`SELECT e.id, e.pending_deliveries AS pending, e.next_attempt_at AS next,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') AS counted,
            (SELECT min(d.next_attempt_at) FROM webhook_deliveries d WHERE d.endpoint_id = e.id
              AND d.status = 'pending' AND NOT ${EARLIER}) AS due,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id
              AND d.status = 'pending' AND d.blocked <> ${EARLIER}) AS wrong
          FROM webhook_endpoints e`)) as Record<string, unknown>[]
        ).filter(
          (row) =>
            Number(row.pending) !== Number(row.counted) ||
            (row.next === null ? null : Number(row.next)) !==
              (row.due === null ? null : Number(row.due)) ||
            Number(row.wrong) !== 0,
        );
      let { owner } = await tokensOf(app);
      const hook = WebhookWithSecret.parse(
        (
          await app.request('POST', '/listings/webhooks', {
            body: { url: receiver.url('/drift') },
            token: owner,
          })
        ).body,
      );
      receiver.statuses.push(500);
      await app.appendEvents(
        propertyEvent('p1'),
        propertyEvent('p1', 'owner-1', 'property.archived'),
        propertyEvent('p2'),
      );
      await app.deps.stores.webhooks.fanOut(app.clock(), app.config.webhookQuotas);
      expect(await drift()).toEqual([]);
      // p1's first attempt fails: its archive waits behind it; p2 goes.
      expect(await deliver(app)).toMatchObject({ attempted: 2, failed: 1, succeeded: 1 });
      expect(await drift()).toEqual([]);
      app.clock.advance(30_000);
      expect(await deliver(app)).toMatchObject({ attempted: 2, succeeded: 2 });
      expect(await drift()).toEqual([]);
      const log = DeliveryList.parse(
        (await app.request('GET', `/listings/webhooks/${hook.id}/deliveries`, { token: owner }))
          .body,
      ).data;
      // The first of p1 again: it goes before nothing pending, so it may go at once.
      await app.request(
        'POST',
        `/listings/webhooks/${hook.id}/deliveries/${log.at(-1)!.id}/redeliver`,
        { token: owner },
      );
      expect(await drift()).toEqual([]);
      await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
        body: { enabled: false },
        token: owner,
      });
      app.clock.advance(31 * DAY_MS);
      owner = (await tokensOf(app)).owner;
      await app.request('PATCH', `/listings/webhooks/${hook.id}`, {
        body: { enabled: true },
        token: owner,
      });
      // A new event of p1 waits behind the redelivered one, whose event is then pruned.
      await app.appendEvents(propertyEvent('p1', 'owner-1', 'property.unarchived'));
      await app.deps.stores.webhooks.fanOut(app.clock(), app.config.webhookQuotas);
      expect(await drift()).toEqual([]);
      expect(await app.deps.stores.events.pruneEvents(app.clock() - 30 * DAY_MS)).toBe(3);
      await eventsPrune.run(app.deps);
      expect(await drift()).toEqual([]);
      expect(await deliver(app)).toMatchObject({ attempted: 1, succeeded: 1 });
      expect(await drift()).toEqual([]);
    });

    if (store.name === 'SQLite') {
      test('a scheduling pass reads endpoints, and a claim the first entry of one index, on a database never analysed with 10,000 deliveries pending', async () => {
        const app = await setUp();
        const db = app.db!;
        const ids = await backlogOf(app);
        const stats = db.$client
          .query("SELECT count(*) AS n FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'")
          .get() as { n: number };
        expect(stats.n).toBe(0);
        const webhooks = app.deps.stores.webhooks;
        const now = app.clock();
        // The first look also clears claims a crashed process left: a statement of its own.
        webhooks.dueEndpoints(now, 1000, false);
        let due: unknown[] = [];
        const looking = plansOf(db, () => {
          due = [
            ...(webhooks.dueEndpoints(now, 1000, false) as unknown[]),
            ...(webhooks.dueEndpoints(now, 1000, true) as unknown[]),
          ];
        });
        expect(due).toHaveLength(ENDPOINTS);
        // Endpoints only, by their index: no delivery is read, nothing scanned or sorted.
        expect(looking).toEqual(
          Array(2).fill(
            'SEARCH webhook_endpoints USING INDEX webhook_endpoints_due (enabled=? AND slow=? AND next_attempt_at<?)',
          ),
        );
        let claimed: { delivery: { eventId: number } } | null = null;
        const claiming = plansOf(db, () => {
          claimed = webhooks.claimDelivery(ids[0]!, now, now + 60_000) as typeof claimed;
        });
        expect(claimed!.delivery.eventId).toBe(1);
        // The deliveries are read by one index and by id only: the endpoint's next
        // delivery is its first entry, whatever the backlog.
        const deliveriesRead = claiming.filter((line) => /webhook_deliveries|\bd\b/.test(line));
        expect(deliveriesRead.length).toBeGreaterThan(0);
        for (const line of deliveriesRead) {
          expect(line).toMatch(
            /^SEARCH (d USING INDEX webhook_deliveries_next \(endpoint_id=\? AND next_attempt_at<\?\)|webhook_deliveries USING INTEGER PRIMARY KEY \(rowid=\?\))$/,
          );
        }
        expect(claiming.filter((line) => /SCAN|TEMP B-TREE/.test(line))).toEqual([]);
      });
    } else {
      test('PostgreSQL plans: a scheduling pass reads endpoints only, and a claim the first entry of webhook_deliveries_next, with 10,000 deliveries pending and no ANALYZE', async () => {
        const app = await setUp();
        const ids = await backlogOf(app);
        const client = app.client!;
        const dialect = new PgDialect();
        const explain = async (query: Parameters<PgDialect['sqlToQuery']>[0]) => {
          const { sql, params } = dialect.sqlToQuery(query);
          const rows = await client.unsafe(`EXPLAIN ${sql}`, params as never[]);
          return (rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
        };
        const now = app.clock();
        for (const slow of [false, true]) {
          expect(await explain(dueEndpoints(now, 1000, slow))).not.toContain('webhook_deliveries');
        }
        const claim = await explain(nextDelivery(ids[0]!, now));
        expect(claim).toContain('Index Scan using webhook_deliveries_next on webhook_deliveries');
        expect(claim).not.toMatch(/Seq Scan on webhook_deliveries|Sort/);
      });
    }
  });
}
