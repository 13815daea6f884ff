import { z } from 'zod';
import type { OutboxCounts, OutboxEntry } from './store';

/** One message of the outbox as employees see it: never its bodies. */
export const OutboxMessage = z.object({
  id: z.number().int(),
  recipient: z.string(),
  template: z.string().meta({ example: 'password-reset' }),
  language: z.string().meta({ example: 'en' }),
  subject: z.string(),
  status: z.enum(['pending', 'sent', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable().meta({ description: 'pending: when it is tried next' }),
  lastResponse: z
    .string()
    .nullable()
    .meta({ description: "the SMTP server's last answer, or why it could not be reached" }),
  createdAt: z.string(),
  finishedAt: z.string().nullable().meta({ description: 'when it was sent or given up on' }),
});

/** `GET /admin/mail`: what waits, what failed, and the newest messages. */
export const OutboxView = z.object({
  pending: z.number().int(),
  failed: z.number().int(),
  messages: z.array(OutboxMessage),
});
export type OutboxView = z.infer<typeof OutboxView>;

/** Messages the console lists at once, newest first. */
export const OUTBOX_PAGE = 50;

export const outboxViewOf = (counts: OutboxCounts, entries: OutboxEntry[]): OutboxView => ({
  ...counts,
  messages: entries.map((entry) => ({
    ...entry,
    nextAttemptAt: entry.status === 'pending' ? entry.nextAttemptAt.toISOString() : null,
    createdAt: entry.createdAt.toISOString(),
    finishedAt: entry.finishedAt?.toISOString() ?? null,
  })),
});
