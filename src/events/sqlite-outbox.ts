import type { Db, DbOrTx } from '@/db/sqlite/client';
import { insertRows } from '@/db/sqlite/insert-rows';
import { events } from '@/db/sqlite/schema';
import { eventRowOf } from './operations';
import { announcedOnceCommitted, recordAppended } from './signal';
import type { NewEvent } from './store';

/**
 * The key of SQLite's open transaction in `signal.ts`: `bun:sqlite` runs one
 * transaction at a time and synchronously, so an append belongs to the one
 * open while it runs.
 */
const OPEN_TRANSACTION = {};

/**
 * `write`, a synchronous SQLite transaction that may append events, then the
 * announcement of what it appended (`announcedOnceCommitted`, `signal.ts`).
 */
export const announcedAfter = <T>(write: () => T): T =>
  announcedOnceCommitted((hold) => {
    hold(OPEN_TRANSACTION);
    return write();
  });

const INSERT_HEAD = `INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
  VALUES `;
const INSERT_VALUES = '(?, ?, ?, ?, ?, ?)';

/**
 * Appends one event. Call it inside the write transaction of the change it
 * tells of, after the change: the event then commits or rolls back with it,
 * and its id (assigned here, while the transaction holds SQLite's only write
 * lock) is greater than that of every event committed before it.
 */
export function appendEvent(db: DbOrTx, event: NewEvent, now: number): void {
  if ('$client' in db) {
    // The connection itself: one prepared statement, the batch's with one row.
    appendEvents(db, [{ event, now }]);
    return;
  }
  db.insert(events).values(eventRowOf(event, now)).run();
  recordAppended(OPEN_TRANSACTION, [event]);
}

/**
 * Appends several events in the order given (ids ascending in that order)
 * with multi-row INSERTs: for a write that tells of many changes at once
 * (the creates of one group commit), as `appendEvent` would one by one.
 */
export function appendEvents(db: Db, batch: readonly { event: NewEvent; now: number }[]): void {
  if (batch.length === 0) return;
  const params = batch.flatMap(({ event, now }) => {
    const row = eventRowOf(event, now);
    return [row.type, now, row.resourceKind, row.resourceId, row.ownerId, row.data];
  });
  insertRows(db.$client, INSERT_HEAD, INSERT_VALUES, 6, params);
  recordAppended(
    OPEN_TRANSACTION,
    batch.map(({ event }) => event),
  );
}
