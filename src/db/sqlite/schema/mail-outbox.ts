import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Messages waiting to be sent, and those sent or given up on
 * (docs/accounts.md#mail). A request only inserts a row; the mail-delivery
 * job sends it. The bodies are cleared once a message is sent or given up
 * on, so a link it carries does not outlive its use in the database.
 */
export const mailOutbox = sqliteTable(
  'mail_outbox',
  {
    id: integer().primaryKey(),
    recipient: text().notNull(),
    /** The template it was rendered from, e.g. `password-reset`. */
    template: text().notNull(),
    language: text().notNull(),
    subject: text().notNull(),
    textBody: text(),
    htmlBody: text(),
    status: text({ enum: ['pending', 'sent', 'failed'] }).notNull(),
    attempts: integer().notNull().default(0),
    /** When a pending message may next be tried. */
    nextAttemptAt: integer({ mode: 'timestamp_ms' }).notNull(),
    /** While set and not past: an attempt is in flight; past it, the sender is presumed dead. */
    claimedUntil: integer({ mode: 'timestamp_ms' }),
    /** The SMTP server's last answer (its acceptance, or why it refused), or the connection error. */
    lastResponse: text(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    /** When it was sent, or given up on. */
    finishedAt: integer({ mode: 'timestamp_ms' }),
  },
  (table) => [
    index('mail_outbox_due').on(table.status, table.nextAttemptAt),
    index('mail_outbox_finished_at').on(table.finishedAt),
  ],
);

export type MailOutboxRow = typeof mailOutbox.$inferSelect;
