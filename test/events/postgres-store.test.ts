import { describe, expect, spyOn, test } from 'bun:test';
import type { SQL } from 'bun';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Caller } from '@/auth/tokens';
import { type PgTx, pgDatabase } from '@/db/pg/client';
import { cursorOf } from '@/events/cursor';
import { eventRowOf } from '@/events/operations';
import { appendEventRows } from '@/events/postgres-outbox';
import { postgresEventStore } from '@/events/postgres-store';
import type { EventPage } from '@/events/schemas';
import type { EventStore } from '@/events/store';
import { pgSuite, postgresAvailable } from '../support/postgres';
import { pgSuiteDatabase, propertyEvent } from './stores';

const employee = { sub: 'employee-1', aud: 'employee' } as Caller;

describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL event store'), () => {
  const { connect } = pgSuiteDatabase();

  async function emptyStore(): Promise<{ store: EventStore; client: SQL }> {
    const client = connect();
    await client`TRUNCATE events RESTART IDENTITY`;
    return { store: postgresEventStore(client), client };
  }

  /** Every stored event's resource id, in id order. */
  const ids = async (store: EventStore) =>
    (await store.readEvents(employee, { limit: 500 })).data.map((event) => event.resource.id);

  /** Whether some connection waits for an advisory lock now. */
  const lockWaiters = async (client: SQL) => {
    const [row] = await client`SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND NOT granted`;
    return (row as { n: number }).n;
  };

  test('two appending transactions: a reader never skips the one that took its id first and commits last', async () => {
    const { store, client } = await emptyStore();
    const first = pgDatabase(connect());
    const second = pgDatabase(connect());
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let appended!: () => void;
    const firstAppended = new Promise<void>((resolve) => {
      appended = resolve;
    });
    // The first transaction appends, then holds its commit back.
    const slow = first.transaction(async (tx: PgTx) => {
      await appendEventRows(tx, [eventRowOf(propertyEvent('first'), 1)]);
      appended();
      await held;
    });
    await firstAppended;
    // The second appends and would commit at once.
    let secondDone = false;
    const fast = second
      .transaction((tx: PgTx) => appendEventRows(tx, [eventRowOf(propertyEvent('second'), 2)]))
      .then(() => {
        secondDone = true;
      });
    // It either committed (no serialisation) or waits on the append lock.
    for (let i = 0; i < 200 && !secondDone && (await lockWaiters(client)) === 0; i++) {
      await Bun.sleep(5);
    }
    // A reader now, while the first is in flight: continuing from its cursor must miss nothing.
    let early: EventPage | undefined;
    let committedMeanwhile = true;
    try {
      early = await store.readEvents(employee, {});
      committedMeanwhile = secondDone;
    } finally {
      release();
      await Promise.all([slow, fast]);
    }
    // With the append lock the second waits for the first's commit, so the reader saw neither.
    expect([committedMeanwhile, early.data]).toEqual([false, []]);
    const cursor = early.next_cursor;
    const later = await store.readEvents(employee, cursor === null ? {} : { after: cursor });
    expect([...early.data, ...later.data].map((event) => [event.id, event.resource.id])).toEqual([
      [cursorOf(1), 'first'],
      [cursorOf(2), 'second'],
    ]);
  });

  test('many concurrent appenders: ids commit in order, every reader following its cursor sees all', async () => {
    const { store } = await emptyStore();
    const writers = Array.from({ length: 4 }, () => postgresEventStore(connect()));
    const seen: string[] = [];
    let cursor: string | null = null;
    let writing = true;
    const follow = async () => {
      while (writing) {
        const page = await store.readEvents(employee, cursor === null ? {} : { after: cursor });
        seen.push(...page.data.map((event) => event.resource.id));
        cursor = page.next_cursor;
      }
    };
    const reading = follow();
    await Promise.all(
      writers.map(async (writer, w) => {
        for (let i = 0; i < 25; i++) {
          await writer.appendEvents([
            { event: propertyEvent(`w${w}-${i}-a`), now: i },
            { event: propertyEvent(`w${w}-${i}-b`), now: i },
          ]);
        }
      }),
    );
    writing = false;
    await reading;
    const page = await store.readEvents(employee, cursor === null ? {} : { after: cursor });
    seen.push(...page.data.map((event) => event.resource.id));
    expect(seen).toHaveLength(200);
    expect(new Set(seen).size).toBe(200);
    expect(seen).toEqual(await ids(store));
  });

  test('a failed transaction appends nothing and leaves no gap readers wait on', async () => {
    const { store, client } = await emptyStore();
    const db = pgDatabase(client);
    await expect(
      db.transaction(async (tx: PgTx) => {
        await appendEventRows(tx, [eventRowOf(propertyEvent('lost'), 1)]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await store.appendEvents([{ event: propertyEvent('kept'), now: 2 }]);
    // The rolled-back id is never used again; the next event is read past it.
    expect(await ids(store)).toEqual(['kept']);
    expect((await store.readEvents(employee, {})).data[0]!.id).toBe(cursorOf(2));
  });

  test('round trips: times to the millisecond, JSON text byte for byte, a customer id with NUL finds nothing', async () => {
    const { store } = await emptyStore();
    const at = Date.UTC(2099, 11, 31, 23, 59, 59, 999);
    const data = { b: 1, a: ['ü', '\u2028', 1.5e300], nested: { '': null } };
    await store.appendEvents([{ event: { ...propertyEvent('p'), data }, now: at }]);
    const [event] = (await store.readEvents(employee, {})).data;
    expect(event!.occurredAt).toBe(new Date(at).toISOString());
    expect(JSON.stringify(event!.data)).toBe(JSON.stringify(data));
    const nul = { sub: 'owner-1\u0000', aud: 'customer' } as Caller;
    expect(await store.readEvents(nul, {})).toEqual({
      data: [],
      next_cursor: null,
      has_more: false,
    });
  });

  test('perf: a page query is built once a shape, not at every read', async () => {
    // drizzle built the 17-arm query of a customer's read without types at
    // every read: 0.8 ms of CPU, more than the database's work.
    const { store } = await emptyStore();
    await store.appendEvents([{ event: propertyEvent('p'), now: 1 }]);
    const customer = { sub: 'owner-1', aud: 'customer' } as Caller;
    const built = spyOn(PgDialect.prototype, 'sqlToQuery');
    try {
      const reads = [
        () => store.readEvents(customer, {}),
        () => store.readEvents(customer, { types: ['unit.updated', 'property.created'] }),
        () => store.readEvents(employee, { types: ['property.created'] }),
      ];
      for (const read of reads) {
        const first = built.mock.calls.length;
        const pages = [];
        for (let i = 0; i < 5; i++) pages.push(await read());
        // Built by the first read of the shape at most (5 times over without the cache).
        expect(built.mock.calls.length - first).toBeLessThanOrEqual(1);
        expect(new Set(pages.map((page) => JSON.stringify(page))).size).toBe(1);
      }
      expect((await store.readEvents(customer, {})).data.map((e) => e.resource.id)).toEqual(['p']);
    } finally {
      built.mockRestore();
    }
  });
});
