import { expect, test } from 'bun:test';
import { cursorOf } from '@/events/cursor';
import { MAX_EVENT_PAGE_BYTES } from '@/events/operations';
import { EventPage } from '@/events/schemas';
import * as eventsPrune from '@/workers/events-prune';
import { createTestApp, manualClock, problemOf } from '../support/harness';
import { ANSWERS_WITHOUT_PROMISE, sqliteOnly } from '../support/postgres-mode';
import { propertyEvent, storesUnderTest, tokensOf } from './stores';
import { readAll, readFeed } from './support';

const DAY_MS = 24 * 60 * 60 * 1000;
const START = Date.UTC(2026, 2, 1, 12, 0, 0, 123);

for (const store of storesUnderTest()) {
  store.describe('GET /listings/events on the event store', () => {
    test('happy: keyset pages walk every event once, in order, each as it was appended', async () => {
      const app = await store.app({ clock: manualClock(START) });
      const { employee } = await tokensOf(app);
      await app.appendEvents(propertyEvent('p1'), propertyEvent('p2'));
      await app.appendEvents(propertyEvent('p3'));
      const first = await readFeed(app, employee, '?limit=2');
      expect(first.status).toBe(200);
      const page = EventPage.parse(first.body);
      expect(page.data.map((event) => event.resource.id)).toEqual(['p1', 'p2']);
      expect(page.data[0]).toEqual({
        id: cursorOf(1),
        type: 'property.created',
        occurredAt: new Date(START).toISOString(),
        resource: { kind: 'property', id: 'p1' },
        ownerId: 'owner-1',
        data: { id: 'p1', note: 'señal "quoted" \\ ✓' },
      });
      expect(page).toMatchObject({ has_more: true, next_cursor: cursorOf(2) });
      const second = await readFeed(app, employee, `?limit=2&after=${page.next_cursor}`);
      expect(EventPage.parse(second.body)).toMatchObject({
        data: [{ id: cursorOf(3), resource: { id: 'p3' } }],
        next_cursor: cursorOf(3),
        has_more: false,
      });
      const empty = await readFeed(app, employee, `?after=${cursorOf(3)}`);
      expect(empty.body).toEqual({ data: [], next_cursor: cursorOf(3), has_more: false });
      // A cursor past the last id is not an error: nothing follows it yet.
      const ahead = await readFeed(app, employee, `?after=${cursorOf(99)}`);
      expect(ahead.body).toEqual({ data: [], next_cursor: cursorOf(99), has_more: false });
    });

    test('happy: types filter (comma or repeated); limit defaults to 100', async () => {
      const app = await store.app();
      const { employee } = await tokensOf(app);
      await app.appendEvents(
        ...Array.from({ length: 101 }, (_, i) => propertyEvent(`p${i}`)),
        propertyEvent('p0', 'owner-1', 'property.converted'),
      );
      const all = await readFeed(app, employee);
      expect([all.body.data.length, all.body.has_more]).toEqual([100, true]);
      for (const query of [
        '?types=property.converted,unit.created',
        '?types=property.converted&types=unit.created',
      ]) {
        const res = await readFeed(app, employee, query);
        expect(res.body.data.map((event) => event.type)).toEqual(['property.converted']);
      }
    });

    test('happy: a page stops at MAX_EVENT_PAGE_BYTES of JSON whatever the limit, one event however large, and the walk still sees every event', async () => {
      const app = await store.app();
      const { owner } = await tokensOf(app);
      // Events as large as those written before events named large resources: 40..160 KiB,
      // and one of 1.5 MiB, larger than a page.
      const sizes = Array.from({ length: 30 }, (_, i) => (40 + ((i * 37) % 121)) * 1024);
      sizes.splice(17, 0, 1.5 * 1024 * 1024);
      await app.appendEvents(
        ...sizes.map((size, i) => ({
          ...propertyEvent(`p${i}`),
          data: { id: `p${i}`, fill: 'é'.repeat(size / 2) },
        })),
      );
      const seen: string[] = [];
      let after = '';
      let pages = 0;
      for (;;) {
        const res = await readFeed(app, owner, `?limit=500${after}`);
        expect(res.status).toBe(200);
        const page = EventPage.parse(res.body);
        pages++;
        const bytes = Buffer.byteLength(res.text);
        if (page.data.length > 1) expect(bytes).toBeLessThanOrEqual(MAX_EVENT_PAGE_BYTES);
        else expect(page.data[0]?.resource.id).toBe('p17');
        expect(page.next_cursor).toBe(page.data.at(-1)!.id);
        seen.push(...page.data.map((event) => event.resource.id));
        if (!page.has_more) break;
        // A page is cut only where the next event would not fit.
        const next = await readFeed(app, owner, `?limit=1&after=${page.next_cursor}`);
        expect(bytes + Buffer.byteLength(JSON.stringify(next.body.data[0])) + 1).toBeGreaterThan(
          MAX_EVENT_PAGE_BYTES - 128,
        );
        after = `&after=${page.next_cursor}`;
      }
      expect(seen).toEqual(sizes.map((_, i) => `p${i}`));
      expect(pages).toBeGreaterThanOrEqual(
        Math.ceil(sizes.reduce((a, b) => a + b) / MAX_EVENT_PAGE_BYTES),
      );
    });

    test("happy: a customer reads its own properties' events only; an employee all", async () => {
      const app = await store.app();
      const { employee, owner, other } = await tokensOf(app);
      await app.appendEvents(propertyEvent('mine'), propertyEvent('theirs', 'owner-2'), {
        type: 'neighbourhood.updated',
        resource: { kind: 'neighbourhood', id: 'sol' },
        ownerId: null,
        data: { id: 'sol' },
      });
      expect((await readAll(app, owner)).events.map((event) => event.resource.id)).toEqual([
        'mine',
      ]);
      expect((await readAll(app, other)).events.map((event) => event.resource.id)).toEqual([
        'theirs',
      ]);
      const everything = await readAll(app, employee);
      expect(everything.events.map((event) => event.resource.id)).toEqual([
        'mine',
        'theirs',
        'sol',
      ]);
      const after = await readFeed(app, owner, `?after=${everything.events[1]!.id}`);
      expect(after.body).toEqual({ data: [], next_cursor: cursorOf(2), has_more: false });
    });

    test('happy: a long poll is answered by an event appended while it waits', async () => {
      const app = await store.app();
      const { owner } = await tokensOf(app);
      const polling = readFeed(app, owner, '?wait=10');
      // Another owner's event does not end the customer's wait; its own does.
      await app.appendEvents(propertyEvent('theirs', 'owner-2'));
      await app.appendEvents(propertyEvent('late'));
      const res = await polling;
      expect(res.status).toBe(200);
      expect(res.body.data.map((event) => event.resource.id)).toEqual(['late']);
    });

    test('happy: events-prune removes old events; a cursor before them answers 410; ids never restart', async () => {
      const clock = manualClock(START);
      const app = await store.app({ clock, env: { EVENTS_RETENTION_DAYS: '2' } });
      const staff = () => app.tokenFor('employee-1', 'employee');
      await app.appendEvents(propertyEvent('a'), propertyEvent('b'));
      clock.advance(DAY_MS);
      await app.appendEvents(propertyEvent('kept'));
      clock.advance(DAY_MS + 1);
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 2, deliveries: 0 });
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 0, deliveries: 0 });
      const gone = await readFeed(app, await staff(), `?after=${cursorOf(1)}`);
      expect(gone.status).toBe(410);
      expect(gone.body as unknown).toEqual(problemOf(410));
      const edge = await readFeed(app, await staff(), `?after=${cursorOf(2)}`);
      expect(edge.body.data.map((event) => event.resource.id)).toEqual(['kept']);
      clock.advance(3 * DAY_MS);
      expect(await eventsPrune.run(app.deps)).toEqual({ pruned: 1, deliveries: 0 });
      expect((await readFeed(app, await staff(), `?after=${cursorOf(2)}`)).status).toBe(410);
      expect((await readFeed(app, await staff())).body.data).toEqual([]);
      await app.appendEvents(propertyEvent('next'));
      const after = await readFeed(app, await staff(), `?after=${cursorOf(3)}`);
      expect(after.body.data.map((event) => [event.id, event.resource.id])).toEqual([
        [cursorOf(4), 'next'],
      ]);
    });

    test('error: a bad query or cursor is a 400 problem', async () => {
      const app = await store.app();
      const { employee } = await tokensOf(app);
      for (const [query, name] of [
        ['?limit=0', 'limit'],
        ['?wait=31', 'wait'],
        ['?types=property.exploded', 'types'],
        ['?after=nonsense', 'after'],
      ] as const) {
        const res = await readFeed(app, employee, query);
        expect([query, res.status]).toEqual([query, 400]);
        const { invalidParams } = res.body as unknown as { invalidParams: { name: string }[] };
        expect(invalidParams.map((param) => param.name)).toEqual([name]);
      }
    });

    test('auth: 401 without a token', async () => {
      const app = await store.app();
      const res = await app.request('GET', '/listings/events');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(problemOf(401));
    });
  });
}

sqliteOnly.test(
  ANSWERS_WITHOUT_PROMISE,
  'the SQLite stores answer at once: the feed, webhooks, the audit log and job runs never wait on a promise',
  async () => {
    const app = createTestApp();
    const employee = { sub: 'employee-1', aud: 'employee' } as const;
    await app.deps.stores.events.appendEvents([{ event: propertyEvent('p'), now: app.clock() }]);
    const answers = [
      app.deps.stores.events.readEvents(employee, {}),
      app.deps.stores.events.pruneEvents(0),
      app.deps.stores.webhooks.listEndpoints(employee),
      app.deps.stores.webhooks.fanOut(app.clock(), app.config.webhookQuotas),
      app.deps.stores.webhooks.dueEndpoints(app.clock(), 10, false),
      app.deps.stores.webhooks.claimDelivery('none', app.clock(), app.clock() + 1),
      app.deps.stores.webhooks.releaseEndpoint('none', app.clock() + 1),
      app.deps.stores.audit.searchAudit({}),
      app.deps.stores.jobRuns.lastRuns('events-prune', 20),
      app.deps.jobs!.status(),
    ];
    expect(answers.filter((answer) => answer instanceof Promise)).toEqual([]);
    expect((answers[0] as EventPage).data).toHaveLength(1);
  },
);
