import { and, eq, inArray, isNull, lt, lte, min, or } from 'drizzle-orm';
import type * as pg from '@/db/pg/schema';
import type { mailOutbox } from '@/db/sqlite/schema';
import type { OutboxCounts } from './store';

/** What both stores' queries share, written once for either table. */
type OutboxTable = typeof mailOutbox | typeof pg.mailOutbox;

/** Pending, due, and not held by a live attempt (a claim past its time is a dead sender's). */
export const dueWhere = (table: OutboxTable, now: Date) =>
  and(
    eq(table.status, 'pending'),
    lte(table.nextAttemptAt, now),
    or(isNull(table.claimedUntil), lte(table.claimedUntil, now)),
  );

export const finishedWhere = (table: OutboxTable, before: Date) =>
  and(inArray(table.status, ['sent', 'failed']), lt(table.finishedAt, before));

export const claimedColumns = <T extends OutboxTable>(
  table: T,
): Pick<T, 'id' | 'recipient' | 'template' | 'subject' | 'textBody' | 'htmlBody' | 'attempts'> => ({
  id: table.id,
  recipient: table.recipient,
  template: table.template,
  subject: table.subject,
  textBody: table.textBody,
  htmlBody: table.htmlBody,
  attempts: table.attempts,
});

/** The columns the console lists: all but the bodies and the claim. */
export const entryColumns = <T extends OutboxTable>(
  table: T,
): Pick<
  T,
  | 'id'
  | 'recipient'
  | 'template'
  | 'language'
  | 'subject'
  | 'status'
  | 'attempts'
  | 'nextAttemptAt'
  | 'lastResponse'
  | 'createdAt'
  | 'finishedAt'
> => ({
  id: table.id,
  recipient: table.recipient,
  template: table.template,
  language: table.language,
  subject: table.subject,
  status: table.status,
  attempts: table.attempts,
  nextAttemptAt: table.nextAttemptAt,
  lastResponse: table.lastResponse,
  createdAt: table.createdAt,
  finishedAt: table.finishedAt,
});

/** A finished message keeps its address, subject and the server's answer, never its bodies. */
const finished = (response: string, now: Date) => ({
  lastResponse: response,
  claimedUntil: null,
  finishedAt: now,
  textBody: null,
  htmlBody: null,
});

export const sentChange = (response: string, now: Date) => ({
  status: 'sent' as const,
  ...finished(response, now),
});

export const failedChange = (response: string, now: Date, retryAt: Date | null) =>
  retryAt === null
    ? { status: 'failed' as const, ...finished(response, now) }
    : { lastResponse: response, claimedUntil: null, nextAttemptAt: retryAt };

export function outboxCountsOf(rows: { status: string; n: number }[]): OutboxCounts {
  const of = (status: string) => rows.find((row) => row.status === status)?.n ?? 0;
  return { pending: of('pending'), failed: of('failed') };
}

/**
 * The queueing time of the oldest pending message: the status prefix of
 * `mail_outbox_due` finds the pending rows, the few a drained queue holds.
 */
export const oldestPendingColumns = (table: OutboxTable) => ({ at: min(table.createdAt) });
export const pendingWhere = (table: OutboxTable) => eq(table.status, 'pending');
