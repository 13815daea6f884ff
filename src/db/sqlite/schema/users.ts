import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const users = sqliteTable(
  'users',
  {
    id: text().primaryKey(),
    // Stored lower-cased: emails are unique case-insensitively.
    email: text().notNull(),
    passwordHash: text().notNull(),
    role: text({ enum: ['customer', 'employee'] }).notNull(),
    createdAt: integer({ mode: 'timestamp_ms' })
      .notNull()
      .default(sql`(unixepoch('subsec') * 1000)`),
    /** When an employee or operator disabled the account; null while it may sign in. */
    disabledAt: integer({ mode: 'timestamp_ms' }),
    /**
     * True from a sign-up under `SIGN_UP=verify` until its link is followed
     * (docs/accounts.md#email-verification); every other account, and every
     * account older than this column, is verified.
     */
    emailUnverified: integer({ mode: 'boolean' }).notNull().default(false),
  },
  (table) => [uniqueIndex('users_email_unique').on(table.email)],
);

export type User = typeof users.$inferSelect;

/**
 * Bearer tokens of a subject issued (`iat`) at or before `validAfter`'s
 * second answer 401 (docs/accounts.md, "Revoking credentials"). Keyed by the
 * token `sub`, with no foreign key: the cut-off of a deleted account
 * outlives its row, so the tokens it had stay refused.
 */
export const tokenCutoffs = sqliteTable('token_cutoffs', {
  subject: text().primaryKey(),
  validAfter: integer({ mode: 'timestamp_ms' }).notNull(),
});

export type TokenCutoffRow = typeof tokenCutoffs.$inferSelect;
