import { integer, text } from './columns';
import { table } from './table';

/** An employee's own per-minute limit (never below 2000), keyed by the token `sub`. */
export const employeeLimits = table('employee_limits', {
  employeeSub: text().primaryKey(),
  perMinute: integer().notNull(),
});
