import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { epochMs, epochMsNumber, serialKey } from './columns';

export const employeeLimits = pgTable('employee_limits', {
  employeeSub: text().primaryKey(),
  perMinute: integer().notNull(),
});

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

export const planAssignments = pgTable('plan_assignments', {
  customerSub: text().primaryKey(),
  planId: bigint({ mode: 'number' })
    .notNull()
    .references(() => plans.id, { onDelete: 'cascade' }),
});

/** Customer transactions: amounts are exact integer cents. */
export const transactions = pgTable(
  'transactions',
  {
    id: serialKey(),
    customerId: text().notNull(),
    bookingId: text().notNull(),
    amountCents: bigint({ mode: 'number' }).notNull(),
    currency: text().notNull(),
    /** YYYY-MM-DD; text order is date order (kept as text so answers are unchanged). */
    payDate: text().notNull(),
    status: text().notNull(),
    description: text(),
  },
  (table) => [
    index('transactions_customer_pay_date').on(table.customerId, table.payDate, table.id),
    index('transactions_pay_date').on(table.payDate, table.id),
    index('transactions_booking').on(table.bookingId),
  ],
);

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
