import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** An employee's own per-minute limit (never below 2000), keyed by the token `sub`. */
export const employeeLimits = sqliteTable('employee_limits', {
  employeeSub: text().primaryKey(),
  perMinute: integer().notNull(),
});
