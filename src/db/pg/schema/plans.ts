import { sql } from 'drizzle-orm';
import { integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { epochMs, serialKey } from './columns';

export const plans = pgTable(
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
    createdAt: epochMs()
      .notNull()
      .default(sql`(floor(extract(epoch from clock_timestamp()) * 1000)::bigint)`),
  },
  (table) => [uniqueIndex('plans_slug_unique').on(table.slug)],
);
