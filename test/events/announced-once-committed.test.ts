import { afterAll, expect, test } from 'bun:test';
import { type Announced, listenForEvents } from '@/events/signal';
import { announcedAfter, appendEvents } from '@/events/sqlite-outbox';
import type { NewEvent } from '@/events/store';
import { writeTransaction } from '@/listings/sqlite-statements';
import { sqliteDatabase } from '../support/harness';

/**
 * The one announcement mechanism of both databases (`announcedOnceCommitted`,
 * `src/events/signal.ts`), on SQLite: a write's transaction announces what it
 * appended once it committed, and nothing when it rolled back. The PostgreSQL
 * store's use of it is `pg-announce.test.ts`.
 */
const db = sqliteDatabase();
const heard: Announced[] = [];
const stop = listenForEvents({ hear: (announced) => heard.push(announced), release: () => {} });
afterAll(stop);

const event = (id: string): NewEvent => ({
  type: 'property.archived',
  resource: { kind: 'property', id },
  ownerId: 'owner-1',
  data: { id },
});

async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

const eventCount = () =>
  (db.$client.query('SELECT count(*) AS n FROM events').get() as { n: number }).n;

/** Runs `append` in a held transaction that then throws: it rolls back. */
function rolledBack(append: () => void): void {
  expect(() =>
    announcedAfter(() =>
      db.transaction(
        () => {
          append();
          throw new Error('refused');
        },
        { behavior: 'immediate' },
      ),
    ),
  ).toThrow('refused');
}

test('a committed transaction announces its events once; a rolled-back one announces nothing and leaves no event', async () => {
  announcedAfter(() =>
    db.transaction(() => appendEvents(db, [{ event: event('p1'), now: 1 }]), {
      behavior: 'immediate',
    }),
  );
  await settle();
  expect(heard).toEqual([new Map([['owner-1', new Set(['property.archived'])]])]);
  expect(eventCount()).toBe(1);

  heard.length = 0;
  rolledBack(() => appendEvents(db, [{ event: event('p2'), now: 2 }]));
  await settle();
  expect(heard).toEqual([]);
  expect(eventCount()).toBe(1);
});

test('a transaction nested in another is announced with the outer one: nothing when the outer one rolls back', async () => {
  heard.length = 0;
  rolledBack(() => announcedAfter(() => appendEvents(db, [{ event: event('inner'), now: 3 }])));
  await settle();
  expect(heard).toEqual([]);
  expect(eventCount()).toBe(1);
});

test("the listings stores' writeTransaction holds the announcement: a write that rolls back announces nothing", async () => {
  heard.length = 0;
  expect(() =>
    writeTransaction(db, () => {
      appendEvents(db, [{ event: event('listing'), now: 4 }]);
      throw new Error('refused');
    }),
  ).toThrow('refused');
  await settle();
  expect(heard).toEqual([]);
  expect(eventCount()).toBe(1);

  writeTransaction(db, () => appendEvents(db, [{ event: event('listing'), now: 5 }]));
  await settle();
  expect(heard).toEqual([new Map([['owner-1', new Set(['property.archived'])]])]);
});
