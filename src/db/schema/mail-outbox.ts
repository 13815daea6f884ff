import { epochMs, integer, serialKey, text } from './columns';
import { index, table } from './table';

/**
 * Messages waiting to be sent, and those sent or given up on
 * (docs/accounts.md#mail). A request only inserts a row; the mail-delivery
 * job sends it. The bodies are cleared once a message is sent or given up
 * on, so a link it carries does not outlive its use in the database.
 */
export const mailOutbox = table(
  'mail_outbox',
  {
    id: serialKey(),
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
    nextAttemptAt: epochMs().notNull(),
    /** While set and not past: an attempt is in flight; past it, the sender is presumed dead. */
    claimedUntil: epochMs(),
    /** The SMTP server's last answer (its acceptance, or why it refused), or the connection error. */
    lastResponse: text(),
    createdAt: epochMs().notNull(),
    /** When it was sent, or given up on. */
    finishedAt: epochMs(),
  },
  (t) => [
    index('mail_outbox_due').on(t.status, t.nextAttemptAt),
    index('mail_outbox_finished_at').on(t.finishedAt),
  ],
);
