import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs, serialKey } from './columns';

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: serialKey(),
    recipient: text().notNull(),
    template: text().notNull(),
    language: text().notNull(),
    subject: text().notNull(),
    textBody: text(),
    htmlBody: text(),
    status: text({ enum: ['pending', 'sent', 'failed'] }).notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: epochMs().notNull(),
    claimedUntil: epochMs(),
    lastResponse: text(),
    createdAt: epochMs().notNull(),
    finishedAt: epochMs(),
  },
  (table) => [
    index('mail_outbox_due').on(table.status, table.nextAttemptAt),
    index('mail_outbox_finished_at').on(table.finishedAt),
  ],
);
