import { eq, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/sqlite/client';
import { windowUsage } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { CalendarKind } from './calendar';

type WindowUsageRow = typeof windowUsage.$inferSelect;

export interface StoredWindow {
  subject: string;
  kind: CalendarKind;
  start: number;
  end: number;
  used: number;
}

/**
 * Durable home of calendar-window usage. SQLite answers at once, so a hit
 * that needs a caller's stored windows loads them without ever splitting;
 * PostgreSQL answers later, and `MemoryStore` loads them before the hit.
 */
export interface WindowPersistence {
  load(subject: string): MaybePromise<StoredWindow[]>;
  save(rows: readonly StoredWindow[]): MaybePromise<void>;
  /** Deletes windows that ended at or before `now`; returns how many. */
  deleteExpired(now: number): MaybePromise<number>;
}

/** A persistence that answers every call at once (SQLite). */
export interface SyncWindowPersistence extends WindowPersistence {
  load(subject: string): StoredWindow[];
  save(rows: readonly StoredWindow[]): void;
  deleteExpired(now: number): number;
}

/** A stored row as the store reads it. */
export const storedWindowOf = (row: WindowUsageRow): StoredWindow => ({
  subject: row.subject,
  kind: row.window as CalendarKind,
  start: row.windowStart,
  end: row.resetsAt,
  used: row.used,
});

/** A window as the `window_usage` row that keeps it. */
export const windowUsageRowOf = (row: StoredWindow): WindowUsageRow => ({
  subject: row.subject,
  window: row.kind,
  windowStart: row.start,
  resetsAt: row.end,
  used: row.used,
});

/** An upsert's update of a stored window: the new row's start, end and use. */
export const REPLACED_WINDOW = {
  windowStart: sql`excluded.window_start`,
  resetsAt: sql`excluded.resets_at`,
  used: sql`excluded.used`,
};

/** Calendar-window usage in the `window_usage` table, with prepared statements. */
export function sqliteWindowPersistence(db: Db): SyncWindowPersistence {
  const load = db
    .select()
    .from(windowUsage)
    .where(eq(windowUsage.subject, sql.placeholder('subject')))
    .prepare();
  const upsert = db
    .insert(windowUsage)
    .values({
      subject: sql.placeholder('subject'),
      window: sql.placeholder('window'),
      windowStart: sql.placeholder('windowStart'),
      resetsAt: sql.placeholder('resetsAt'),
      used: sql.placeholder('used'),
    })
    .onConflictDoUpdate({
      target: [windowUsage.subject, windowUsage.window],
      set: REPLACED_WINDOW,
    })
    .prepare();
  const deleteExpired = db
    .delete(windowUsage)
    .where(lte(windowUsage.resetsAt, sql.placeholder('now')))
    .returning({ subject: windowUsage.subject })
    .prepare();

  return {
    load: (subject) => load.all({ subject }).map(storedWindowOf),
    save: (rows) =>
      db.transaction(() => {
        for (const row of rows) upsert.run(windowUsageRowOf(row));
      }),
    deleteExpired: (now) => deleteExpired.all({ now }).length,
  };
}
