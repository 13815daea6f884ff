import { eq, lte } from 'drizzle-orm';
import type { PgDb } from '@/db/pg/client';
import { windowUsage } from '@/db/pg/schema';
import {
  REPLACED_WINDOW,
  storedWindowOf,
  type WindowPersistence,
  windowUsageRowOf,
} from './window-persistence';

/** 5 parameters a row: far below PostgreSQL's 65,535 a statement. */
const CHUNK = 1000;

/**
 * Calendar-window usage in PostgreSQL's `window_usage`, answering later:
 * `MemoryStore` loads a caller's windows before the hit that needs them and
 * writes behind, as with SQLite. A save is one transaction, as SQLite's.
 */
export function postgresWindowPersistence(db: PgDb): WindowPersistence {
  return {
    async load(subject) {
      const rows = await db.select().from(windowUsage).where(eq(windowUsage.subject, subject));
      return rows.map(storedWindowOf);
    },
    async save(rows) {
      if (rows.length === 0) return;
      await db.transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += CHUNK) {
          await tx
            .insert(windowUsage)
            .values(rows.slice(i, i + CHUNK).map(windowUsageRowOf))
            .onConflictDoUpdate({
              target: [windowUsage.subject, windowUsage.window],
              set: REPLACED_WINDOW,
            });
        }
      });
    },
    async deleteExpired(now) {
      const deleted = await db
        .delete(windowUsage)
        .where(lte(windowUsage.resetsAt, now))
        .returning({ subject: windowUsage.subject });
      return deleted.length;
    },
  };
}
