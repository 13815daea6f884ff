/**
 * GET /admin/webhooks/summary: every endpoint's deliveries over the last
 * hours as the console shows them, on SQLite and on PostgreSQL.
 */
import { afterAll, expect, test } from 'bun:test';
import { DeliveryList, WebhookSummary, WebhookWithSecret } from '@/webhooks/schemas';
import { propertyEvent, storesUnderTest, tokensOf } from '../events/stores';
import { expectAuthGuards } from '../support/auth-guards';
import { badRequest, manualClock } from '../support/harness';
import { deliver, LOCAL_WEBHOOKS, startReceiver } from './support';

const receiver = startReceiver();
receiver.answerWith(
  (request) => new Response('', { status: new URL(request.url).pathname === '/fail' ? 503 : 200 }),
);
afterAll(() => receiver.stop());
const HOUR_MS = 60 * 60 * 1000;
const START = Date.UTC(2026, 3, 1, 12);

for (const store of storesUnderTest()) {
  store.describe('the webhook summary', () => {
    const setUp = async () => {
      const clock = manualClock(START);
      const app = await store.app({ clock, env: LOCAL_WEBHOOKS });
      return { app, clock, ...(await tokensOf(app)) };
    };

    test('happy: attempts, success rate, p99 and last error per endpoint, within the hours asked', async () => {
      const { app, clock, owner, employee } = await setUp();
      const create = async (url: string, token: string, enabled = true) =>
        WebhookWithSecret.parse(
          (await app.request('POST', '/listings/webhooks', { body: { url, enabled }, token })).body,
        );
      const working = await create(receiver.url('/ok'), owner);
      const failing = await create(receiver.url('/fail'), employee);
      const idle = await create(receiver.url('/ok'), employee, false);
      await app.appendEvents(propertyEvent('p1'), propertyEvent('p2'));
      await deliver(app);
      const logOf = async (id: string) =>
        DeliveryList.parse(
          (await app.request('GET', `/listings/webhooks/${id}/deliveries`, { token: employee }))
            .body,
        ).data.filter((one) => one.lastAttemptAt !== null);
      const worked = await logOf(working.id);
      const failed = await logOf(failing.id);
      expect(worked.map((one) => one.status)).toEqual(['succeeded', 'succeeded']);
      expect(failed.length).toBeGreaterThan(0);

      const read = async (query = '') => {
        // A token of now: the tokens of the set-up expire within the day.
        const token = await app.tokenFor('employee-1', 'employee');
        const res = await app.request('GET', `/admin/webhooks/summary${query}`, { token });
        expect(res.status).toBe(200);
        return WebhookSummary.parse(res.body);
      };
      const summary = await read();
      expect(summary.from).toBe(new Date(START - 24 * HOUR_MS).toISOString());
      expect(summary.to).toBe(new Date(START).toISOString());
      const byId = new Map(summary.endpoints.map((one) => [one.id, one]));
      expect(summary.endpoints).toHaveLength(3);
      // Fewer than 100 deliveries: the nearest-rank 99th percentile is the slowest.
      const slowest = (log: typeof worked) => Math.max(...log.map((one) => one.durationMs ?? 0));
      expect(byId.get(working.id)).toEqual({
        id: working.id,
        url: working.url,
        ownerId: 'owner-1',
        enabled: true,
        disabledReason: null,
        attempted: 2,
        succeeded: 2,
        successRate: 1,
        p99DurationMs: slowest(worked),
        lastError: null,
      });
      expect(byId.get(failing.id)).toEqual({
        id: failing.id,
        url: failing.url,
        ownerId: null,
        enabled: true,
        disabledReason: null,
        attempted: failed.length,
        succeeded: 0,
        successRate: 0,
        p99DurationMs: slowest(failed),
        lastError: { error: 'answered 503', at: failed[0]!.lastAttemptAt! },
      });
      expect(byId.get(idle.id)).toMatchObject({
        enabled: false,
        attempted: 0,
        succeeded: 0,
        successRate: null,
        p99DurationMs: null,
        lastError: null,
      });

      clock.advance(25 * HOUR_MS);
      const dayLater = await read();
      expect(dayLater.endpoints.map((one) => one.attempted)).toEqual([0, 0, 0]);
      const wider = await read('?hours=48');
      expect(wider.endpoints.find((one) => one.id === working.id)?.attempted).toBe(2);
    });

    test.each([
      ['?hours=0', 'hours', 'must be at least 1 (got "0")'],
      ['?hours=169', 'hours', 'must be at most 168 (got "169")'],
      ['?hours=1.5', 'hours', 'must be an integer (got "1.5")'],
      ['?hours=1&hours=2', 'hours', 'is given more than once'],
      ['?since=0', 'since', 'is not a parameter of this operation'],
    ])(
      'error: GET /admin/webhooks/summary%s is a 400 problem naming %s',
      async (query, name, reason) => {
        const { app, employee } = await setUp();
        const res = await app.request('GET', `/admin/webhooks/summary${query}`, {
          token: employee,
        });
        expect([res.status, res.body]).toEqual([400, badRequest([name, reason])]);
      },
    );

    test('auth: anonymous 401, a customer 403', async () => {
      const { app, owner } = await setUp();
      await expectAuthGuards(app, 'employee', ['GET /admin/webhooks/summary'], { token: owner });
    });
  });
}
