import type { MailOutboxRow } from '@/db/sqlite/schema';
import type { MaybePromise } from '@/kernel/maybe-promise';

/** A message as it enters the outbox: rendered, addressed, due at once. */
export type NewMail = Pick<
  MailOutboxRow,
  'recipient' | 'template' | 'language' | 'subject' | 'textBody' | 'htmlBody'
>;

/** The outbox row of a message queued at `now` (epoch ms): pending, due at once. */
export const queuedMailOf = (mail: NewMail, now: number) => ({
  ...mail,
  status: 'pending' as const,
  nextAttemptAt: new Date(now),
  createdAt: new Date(now),
});

/** A message claimed for one attempt; `attempts` already counts it. */
export type ClaimedMail = Pick<
  MailOutboxRow,
  'id' | 'recipient' | 'template' | 'subject' | 'textBody' | 'htmlBody' | 'attempts'
>;

/** A message as the console lists it: never its bodies (a link may be in them). */
export type OutboxEntry = Omit<MailOutboxRow, 'textBody' | 'htmlBody' | 'claimedUntil'>;

/** What the outbox holds, for the console and /metrics. */
export interface OutboxCounts {
  pending: number;
  failed: number;
}

/**
 * The mail outbox (`mail_outbox`). Sending, retrying and giving up are
 * the rules of ./operations.ts; a store holds only its SQL.
 * `sqliteMailOutbox` answers at once, `postgresMailOutbox` with promises.
 */
export interface MailOutboxStore {
  /** Queues a message, due at `now`; its id. */
  enqueue(mail: NewMail, now: Date): MaybePromise<number>;
  /**
   * Up to `limit` pending messages due at `now` and not claimed by a live
   * attempt, oldest first, each claimed until `claimUntil` with the
   * attempt counted, in one statement or transaction (two senders never
   * claim one message).
   */
  claimDue(now: Date, claimUntil: Date, limit: number): MaybePromise<ClaimedMail[]>;
  /** Sent: kept with the server's answer, its bodies cleared. */
  markSent(id: number, response: string, now: Date): MaybePromise<void>;
  /** A failed attempt: tried again at `retryAt`, or, null, given up on (bodies cleared). */
  markFailed(id: number, response: string, now: Date, retryAt: Date | null): MaybePromise<void>;
  /** Deletes the messages sent or given up on before `before`; how many. */
  pruneFinished(before: Date): MaybePromise<number>;
  counts(): MaybePromise<OutboxCounts>;
  /** When the oldest pending message was queued; null when none waits (read for /metrics). */
  oldestPendingAt(): MaybePromise<Date | null>;
  /** The newest `limit` messages (highest id first) without their bodies, for the console. */
  recent(limit: number): MaybePromise<OutboxEntry[]>;
  /** One message as stored. */
  find(id: number): MaybePromise<MailOutboxRow | undefined>;
}
