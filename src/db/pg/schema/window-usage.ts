import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMsNumber } from './columns';

export const windowUsage = pgTable(
  'window_usage',
  {
    subject: text().notNull(),
    window: text({ enum: ['minute', 'hour', 'day', 'week', 'month'] }).notNull(),
    windowStart: epochMsNumber().notNull(),
    resetsAt: epochMsNumber().notNull(),
    used: integer().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.subject, table.window] }),
    index('window_usage_resets_at').on(table.resetsAt),
  ],
);
