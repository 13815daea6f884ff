import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Customer API plans (extra UTC calendar windows). Ids 1 and 2 belong to the built-in
 * Standard and Employee plans, which are not stored: stored plans start at 3.
 * A null limit means the plan has no window of that kind.
 */
export const plans = sqliteTable(
  'plans',
  {
    id: integer().primaryKey(),
    name: text().notNull(),
    slug: text().notNull(),
    minuteLimit: integer(),
    hourLimit: integer(),
    dayLimit: integer(),
    weekLimit: integer(),
    monthLimit: integer(),
    createdAt: integer({ mode: 'timestamp_ms' })
      .notNull()
      .default(sql`(unixepoch('subsec') * 1000)`),
  },
  (table) => [uniqueIndex('plans_slug_unique').on(table.slug)],
);

export type PlanRow = typeof plans.$inferSelect;
