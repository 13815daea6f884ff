import { sql } from 'drizzle-orm';
import { boolean, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { epochMs } from './columns';

export const users = pgTable(
  'users',
  {
    id: text().primaryKey(),
    // Stored lower-cased: emails are unique case-insensitively.
    email: text().notNull(),
    passwordHash: text().notNull(),
    role: text({ enum: ['customer', 'employee'] }).notNull(),
    createdAt: epochMs()
      .notNull()
      .default(sql`(floor(extract(epoch from clock_timestamp()) * 1000)::bigint)`),
    disabledAt: epochMs(),
    emailUnverified: boolean().notNull().default(false),
  },
  (table) => [uniqueIndex('users_email_unique').on(table.email)],
);

/** Token cut-offs per subject (see src/db/sqlite/schema/users.ts). */
export const tokenCutoffs = pgTable('token_cutoffs', {
  subject: text().primaryKey(),
  validAfter: epochMs().notNull(),
});
