import { bigInteger, text } from './columns';
import { plans } from './plans';
import { table } from './table';

/** A customer's plan, keyed by the token `sub` (no account needs to exist). */
export const planAssignments = table('plan_assignments', {
  customerSub: text().primaryKey(),
  // Deleting a plan returns its customers to the built-in Standard plan.
  planId: bigInteger()
    .notNull()
    .references(() => plans.columns.id, { onDelete: 'cascade' }),
});
