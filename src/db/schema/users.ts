import { boolean, epochMs, text } from './columns';
import { table, uniqueIndex } from './table';

export const users = table(
  'users',
  {
    id: text().primaryKey(),
    // Stored lower-cased: emails are unique case-insensitively.
    email: text().notNull(),
    passwordHash: text().notNull(),
    role: text({ enum: ['customer', 'employee'] }).notNull(),
    createdAt: epochMs().notNull().defaultNow(),
    /** When an employee or operator disabled the account; null while it may sign in. */
    disabledAt: epochMs(),
    /**
     * True from a sign-up under `SIGN_UP=verify` until its link is followed
     * (docs/accounts.md#email-verification); every other account, and every
     * account older than this column, is verified.
     */
    emailUnverified: boolean().notNull().default(false),
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email)],
);

/**
 * Bearer tokens of a subject issued (`iat`) at or before `validAfter`'s
 * second answer 401 (docs/accounts.md, "Revoking credentials"). Keyed by the
 * token `sub`, with no foreign key: the cut-off of a deleted account
 * outlives its row, so the tokens it had stay refused.
 */
export const tokenCutoffs = table('token_cutoffs', {
  subject: text().primaryKey(),
  validAfter: epochMs().notNull(),
});
