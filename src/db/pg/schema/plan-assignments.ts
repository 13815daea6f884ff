import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { plans } from './plans';

export const planAssignments = pgTable('plan_assignments', {
  customerSub: text().primaryKey(),
  planId: bigint({ mode: 'number' })
    .notNull()
    .references(() => plans.id, { onDelete: 'cascade' }),
});
