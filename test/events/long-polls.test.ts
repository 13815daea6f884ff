import { expect, test } from 'bun:test';
import type { Caller } from '@/auth/tokens';
import { cursorOf } from '@/events/cursor';
import { MOST_IDS_LOOKED_AT } from '@/events/waits';
import { BASE, problemOf } from '../support/harness';
import { type EventsTestApp, propertyEvent, storesUnderTest, tokensOf } from './stores';
import { readFeed } from './support';

/**
 * What a long poll (`wait`) of GET /listings/events costs the process: how
 * many may be open, and how often each reads the feed again while it waits.
 */

const OWNER: Caller = { sub: 'owner-1', aud: 'customer' };

/** Runs what the announcement of a write (a later macrotask) and the reads it wakes set off. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Waits, by turns of the event loop (at most 2,000), for what the test needs before its next step. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 2000; turn++) {
    if (done()) return;
    await Bun.sleep(1);
  }
  throw new Error(`never happened: ${what}`);
}

/** Counts the feed reads of each caller (by `sub`), through the store the long polls read. */
function countReads(app: EventsTestApp): (sub: string) => number {
  const store = app.deps.stores.events;
  const read = store.readEvents;
  const reads = new Map<string, number>();
  store.readEvents = (caller, query) => {
    reads.set(caller.sub, (reads.get(caller.sub) ?? 0) + 1);
    return read(caller, query);
  };
  return (sub) => reads.get(sub) ?? 0;
}

/** An event written straight into the store's database, as another process would: not announced here. */
async function writeElsewhere(app: EventsTestApp, count: number, owner: string): Promise<void> {
  const insert = `INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
    SELECT 'property.created', 0, 'property', 'elsewhere', '${owner}', '{}' FROM n`;
  if (app.client) await app.client.unsafe(insert);
  else app.db.$client.run(insert);
}

for (const store of storesUnderTest()) {
  store.describe('long polls of the change feed', () => {
    test('limit: open polls are capped per caller and in all (429, Retry-After); a place frees when a poll is answered, ends or its client goes', async () => {
      const app = await store.app({
        env: { EVENTS_LONG_POLLS_PER_CALLER: '2', EVENTS_LONG_POLLS_TOTAL: '3' },
      });
      const { employee, owner, other } = await tokensOf(app);
      const waits = app.deps.feedWaits;
      const mine = [readFeed(app, owner, '?wait=20'), readFeed(app, owner, '?wait=20')];
      await until(() => waits.openPolls(OWNER) === 2, 'two polls of owner-1 open');

      const refused = await readFeed(app, owner, '?wait=20');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.body as unknown).toEqual({
        ...problemOf(429),
        detail:
          'At most 2 long polls of the change feed may be open at once per caller: retry once one is answered',
      });
      // The seconds until the first of the caller's open polls ends.
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(20);
      // A read without `wait` is not a long poll: neither counted nor refused.
      expect((await readFeed(app, owner)).status).toBe(200);
      expect(waits.openPolls(OWNER)).toBe(2);

      const theirs = readFeed(app, other, '?wait=20');
      await until(() => waits.openPolls() === 3, 'three polls open');
      const full = await readFeed(app, employee, '?wait=20');
      expect(full.status).toBe(429);
      expect(full.body as unknown).toEqual({
        ...problemOf(429),
        detail: 'The service holds as many long polls of the change feed as it may: retry shortly',
      });
      expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      // Answered: owner-1's event answers both its polls, and their places are free again.
      await app.appendEvents(propertyEvent('p1'));
      const answered = await Promise.all(mine);
      expect(answered.map((res) => [res.status, res.body.data.length])).toEqual([
        [200, 1],
        [200, 1],
      ]);
      expect([waits.openPolls(OWNER), waits.openPolls()]).toEqual([0, 1]);

      // The client went away: its place is free at once, not after its wait.
      const controller = new AbortController();
      const gone = app.fetch(
        new Request(`${BASE}/listings/events?wait=20&after=${cursorOf(1)}`, {
          headers: { authorization: `Bearer ${owner}` },
          signal: controller.signal,
        }),
      );
      await until(() => waits.openPolls(OWNER) === 1, 'the poll to abort open');
      controller.abort();
      await Promise.resolve(gone).catch(() => undefined);
      await until(() => waits.openPolls(OWNER) === 0, 'the aborted poll to leave');

      // Ended: a poll answered empty after its wait leaves too.
      const idle = await readFeed(app, owner, `?wait=1&after=${cursorOf(1)}`);
      expect(idle.body.data).toEqual([]);
      expect(waits.openPolls(OWNER)).toBe(0);

      await app.appendEvents(propertyEvent('p2', 'owner-2'));
      expect((await theirs).body.data.map((event) => event.resource.id)).toEqual(['p2']);
      expect(waits.openPolls()).toBe(0);
    }, 30_000);

    test('happy: a waiter reads again only for an event it may see: its own owner (any for an employee), of its types', async () => {
      const app = await store.app();
      const reads = countReads(app);
      const { employee, owner, other } = await tokensOf(app);
      const waits = app.deps.feedWaits;
      const customer = readFeed(app, owner, '?wait=20');
      const typed = readFeed(app, other, '?wait=20&types=unit.created');
      const staff = readFeed(app, employee, '?wait=20&types=property.created');
      await until(() => waits.pausedPolls() === 3, 'three polls waiting');
      expect([reads('owner-1'), reads('owner-2'), reads('employee-1')]).toEqual([1, 1, 1]);

      // Another customer's event: the employee's poll wakes and answers; no customer's reads.
      await app.appendEvents(propertyEvent('third', 'owner-3'));
      await settle();
      expect((await staff).body.data.map((event) => event.resource.id)).toEqual(['third']);
      expect([reads('owner-1'), reads('owner-2'), reads('employee-1')]).toEqual([1, 1, 2]);

      // owner-2's event of a type its poll did not ask for: it does not read again.
      await app.appendEvents(propertyEvent('archived', 'owner-2', 'property.archived'));
      await settle();
      expect([reads('owner-1'), reads('owner-2')]).toEqual([1, 1]);

      // Each one's own event: one read more, which answers it.
      await app.appendEvents(propertyEvent('mine'));
      expect((await customer).body.data.map((event) => event.resource.id)).toEqual(['mine']);
      await app.appendEvents(propertyEvent('unit', 'owner-2', 'unit.created'));
      expect((await typed).body.data.map((event) => event.resource.id)).toEqual(['unit']);
      expect([reads('owner-1'), reads('owner-2')]).toEqual([2, 2]);
    }, 30_000);

    test("happy: other processes' events are found by one look for every waiter, which wakes only those who may see them", async () => {
      const app = await store.app();
      const reads = countReads(app);
      const { owner, other } = await tokensOf(app);
      const waits = app.deps.feedWaits;
      const mine = readFeed(app, owner, '?wait=20');
      const theirs = readFeed(app, other, '?wait=20');
      await until(() => waits.pausedPolls() === 2, 'two polls waiting');
      // Nothing happens: the waiters do not read again each second (they did, every one of them).
      await Bun.sleep(1300);
      expect([reads('owner-1'), reads('owner-2')]).toEqual([1, 1]);

      // Another process's write is not announced: the look finds it and wakes owner-1 alone.
      await writeElsewhere(app, 1, 'owner-1');
      await settle();
      expect(reads('owner-1')).toBe(1);
      await waits.lookAgain();
      expect((await mine).body.data.map((event) => event.ownerId)).toEqual(['owner-1']);
      expect([reads('owner-1'), reads('owner-2')]).toEqual([2, 1]);

      // More new ids than one look reads: every waiter reads once, and waits on.
      await writeElsewhere(app, MOST_IDS_LOOKED_AT + 1, 'owner-3');
      await waits.lookAgain();
      await until(() => reads('owner-2') === 2 && waits.pausedPolls() === 1, 'owner-2 to read');
      await waits.lookAgain();
      await settle();
      expect(reads('owner-2')).toBe(2);

      await app.appendEvents(propertyEvent('theirs', 'owner-2'));
      expect((await theirs).body.data.map((event) => event.resource.id)).toEqual(['theirs']);
    }, 30_000);
  });
}
