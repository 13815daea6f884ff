import { integer, pgTable, text } from 'drizzle-orm/pg-core';

export const employeeLimits = pgTable('employee_limits', {
  employeeSub: text().primaryKey(),
  perMinute: integer().notNull(),
});
