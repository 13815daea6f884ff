import { epochMsNumber, integer, text } from './columns';
import { index, primaryKey, table } from './table';

/**
 * Usage of the calendar windows of plans, written behind the in-memory
 * counters at least once a second so it survives a restart (a crash loses at most the last second).
 * `subject` is the limiter key (e.g. `c:<sub>`); times are epoch milliseconds.
 */
export const windowUsage = table(
  'window_usage',
  {
    subject: text().notNull(),
    window: text({ enum: ['minute', 'hour', 'day', 'week', 'month'] }).notNull(),
    windowStart: epochMsNumber().notNull(),
    resetsAt: epochMsNumber().notNull(),
    used: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.subject, t.window] }),
    index('window_usage_resets_at').on(t.resetsAt),
  ],
);
