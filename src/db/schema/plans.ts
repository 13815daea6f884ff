import { epochMs, integer, serialKey, text } from './columns';
import { table, uniqueIndex } from './table';

/**
 * Customer API plans (extra UTC calendar windows). Ids 1 and 2 belong to the built-in
 * Standard and Employee plans, which are not stored: stored plans start at 3.
 * A null limit means the plan has no window of that kind.
 */
export const plans = table(
  'plans',
  {
    id: serialKey(),
    name: text().notNull(),
    slug: text().notNull(),
    minuteLimit: integer(),
    hourLimit: integer(),
    dayLimit: integer(),
    weekLimit: integer(),
    monthLimit: integer(),
    createdAt: epochMs().notNull().defaultNow(),
  },
  (t) => [uniqueIndex('plans_slug_unique').on(t.slug)],
);
