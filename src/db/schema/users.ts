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
  },
  (table) => [uniqueIndex('users_email_unique').on(table.email)],
);

export type User = typeof users.$inferSelect;
