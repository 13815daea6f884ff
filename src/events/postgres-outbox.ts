import { sql } from 'drizzle-orm';
import type { PgDb, PgTx } from '@/db/pg/client';
import { insertRows } from '@/db/pg/insert-rows';
import { events } from '@/db/pg/schema';
import { type Appended, announceEvent } from './signal';
import type { NewEventRow } from './store';

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
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${EVENTS_APPEND_LOCK})`);
  await insertRows(tx, events, rows, CHUNK);
  const appended = appendedIn.get(tx);
  if (appended) for (const { ownerId, type } of rows) appended.push({ ownerId, type });
}

/** What each transaction of `announcedAfter` appended, announced when it commits. */
const appendedIn = new WeakMap<PgTx, Appended[]>();

/**
 * `write` in a PostgreSQL transaction that may append events, then the
 * announcement of what it appended (their owners and types), which wakes
 * the long polls that may see them and the delivery kick. Inside the
 * transaction it would run while COMMIT is still on its way, and the kick's
 * delivery run would find nothing yet and wait for the next tick. Events
 * appended otherwise are found by the waiters' look once a second.
 */
export async function announcedAfter<T>(db: PgDb, write: (tx: PgTx) => Promise<T>): Promise<T> {
  const appended: Appended[] = [];
  const done = await db.transaction((tx) => {
    appendedIn.set(tx, appended);
    return write(tx);
  });
  announceEvent(appended);
  return done;
}
