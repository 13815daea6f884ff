import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Usage of the calendar windows of plans, written behind the in-memory
 * counters at least once a second so it survives a restart (a crash loses at most the last second).
 * `subject` is the limiter key (e.g. `c:<sub>`); times are epoch milliseconds.
 */
export const windowUsage = sqliteTable(
  'window_usage',
  {
    subject: text().notNull(),
    window: text({ enum: ['minute', 'hour', 'day', 'week', 'month'] }).notNull(),
    windowStart: integer().notNull(),
    resetsAt: integer().notNull(),
    used: integer().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.subject, table.window] }),
    index('window_usage_resets_at').on(table.resetsAt),
  ],
);
