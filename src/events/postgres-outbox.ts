import type { PgDb, PgTx } from '@/db/pg/client';
import { insertRowsLocked } from '@/db/pg/insert-rows';
import { events } from '@/db/pg/schema';
import { eventRowOf } from './operations';
import { announcedOnceCommitted, recordAppended } from './signal';
import type { NewEvent, NewEventRow } from './store';

/**
 * The transaction-scoped advisory lock every PostgreSQL append takes before
 * its insert ('events' in ASCII; the migrator's key is another).
 */
export const EVENTS_APPEND_LOCK = 0x6576656e7473n;

/** 6 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 1000;

/**
 * Appends event rows (built by `eventRowOf`) inside `tx`, the PostgreSQL
 * transaction of the change they tell of, in the order given.
 *
 * An identity value is assigned at insert, not at commit: two transactions
 * appending at once could commit id 8 after a reader has passed id 9, and
 * the feed would skip it for good. So every append first takes one
 * transaction-scoped advisory lock, held until COMMIT or ROLLBACK: the
 * appending transactions run their inserts and commits one after the
 * other, a later id always commits after an earlier one (a commit is
 * visible before its locks are released), and every snapshot a reader
 * takes holds a prefix of the ids, as SQLite's single writer gives.
 * Appending last in the transaction keeps the lock short. The events are
 * announced once the transaction has committed (`announcedAfter`); other
 * processes' waiters find them within a second (`FeedWaits`).
 */
export async function appendEventRows(tx: PgTx, rows: readonly NewEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  // The lock and the insert in one statement where it can be: one round trip fewer.
  await insertRowsLocked(tx, events, rows, CHUNK, EVENTS_APPEND_LOCK);
  recordAppended(tx, rows);
}

/** The events of a write (`NewEvent`s at their times), appended in its transaction `tx`. */
export const appendEvents = (tx: PgTx, batch: readonly { event: NewEvent; now: number }[]) =>
  appendEventRows(
    tx,
    batch.map(({ event, now }) => eventRowOf(event, now)),
  );

/**
 * `write` in a PostgreSQL transaction that may append events, then the
 * announcement of what it appended (their owners and types), which wakes
 * the long polls that may see them and the delivery kick (`announcedOnceCommitted`
 * of `signal.ts`, the transaction its key).
 */
export const announcedAfter = <T>(db: PgDb, write: (tx: PgTx) => Promise<T>): Promise<T> =>
  announcedOnceCommitted((hold) =>
    db.transaction((tx) => {
      hold(tx);
      return write(tx);
    }),
  );
