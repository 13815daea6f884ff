import { sql } from 'drizzle-orm';
import type { PgTx } from '@/db/pg/client';
import { insertRows } from '@/db/pg/insert-rows';
import { events } from '@/db/pg/schema';
import { announceEvent } from './signal';
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
 * Appending last in the transaction keeps the lock short. The caller
 * announces the events once the transaction has committed
 * (`announcedAfter`); other processes' waiters look again every second.
 */
export async function appendEventRows(tx: PgTx, rows: readonly NewEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${EVENTS_APPEND_LOCK})`);
  await insertRows(tx, events, rows, CHUNK);
}

/**
 * `write` (a PostgreSQL transaction that may append events), then the
 * announcement that wakes the long polls and the delivery kick. Inside the
 * transaction it would run while COMMIT is still on its way, and the kick's
 * delivery run would find nothing yet and wait for the next tick.
 */
export async function announcedAfter<T>(write: Promise<T>): Promise<T> {
  const done = await write;
  announceEvent();
  return done;
}
