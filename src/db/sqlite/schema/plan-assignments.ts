import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { plans } from './plans';

/** A customer's plan, keyed by the token `sub` (no account needs to exist). */
export const planAssignments = sqliteTable('plan_assignments', {
  customerSub: text().primaryKey(),
  // Deleting a plan returns its customers to the built-in Standard plan.
  planId: integer()
    .notNull()
    .references(() => plans.id, { onDelete: 'cascade' }),
});
