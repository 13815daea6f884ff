import { cutText, toolContext } from '@/audit/record';
import type { AuditLogStore } from '@/audit/store';
import type { Clock } from '@/kernel/clock';
import type { MaybePromise } from '@/kernel/maybe-promise';
import type { Logger } from '@/logger';
import { type MailData, renderMail } from './render';
import type { MailOutboxStore, NewMail } from './store';
import type { MailLanguage, MailTemplate } from './templates';
import { LONGEST_ATTEMPT_MS, type MailTransport } from './transport';

/** Attempts a message gets before it is given up on (status `failed`). */
export const MAIL_MAX_ATTEMPTS = 10;
/** The wait after the first failed attempt; it doubles after each one, up to MAIL_RETRY_MAX_MS. */
export const MAIL_RETRY_FIRST_MS = 30_000;
export const MAIL_RETRY_MAX_MS = 3_600_000;
/** Messages sent or given up on are kept this long (the console shows them), then deleted. */
export const MAIL_KEPT_MS = 30 * 86_400_000;
/** Characters of the server's answer a `mail.failed` event keeps (the outbox keeps it whole). */
const MAIL_FAILED_RESPONSE_MAX = 200;
/** Messages claimed at once; a run claims again until none is due. */
const CLAIM_BATCH = 20;
/** A claim outlasts the longest attempt, so only a dead sender's claim ever runs out. */
const CLAIM_MS = 2 * LONGEST_ATTEMPT_MS;

export interface MailRequest {
  to: string;
  template: MailTemplate;
  language: MailLanguage;
  data: MailData;
}

/** A message rendered into the row the outbox keeps. */
export function outboxRowOf(request: MailRequest): NewMail {
  const rendered = renderMail(request.template, request.language, request.data);
  return {
    recipient: request.to,
    template: request.template,
    language: request.language,
    subject: rendered.subject,
    textBody: rendered.text,
    htmlBody: rendered.html,
  };
}

/**
 * Renders a message and queues it; the mail-delivery job sends it. The
 * caller never waits on a mail server: a request that sends mail only
 * writes this row.
 */
export const queueMail = (
  store: MailOutboxStore,
  clock: Clock,
  request: MailRequest,
): MaybePromise<number> => store.enqueue(outboxRowOf(request), new Date(clock()));

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
export const retryDelayMs = (attempts: number) =>
  Math.min(MAIL_RETRY_FIRST_MS * 2 ** (attempts - 1), MAIL_RETRY_MAX_MS);

export interface MailDeliveryRun {
  sent: number;
  retried: number;
  failed: number;
  pruned: number;
}

/**
 * Sends every message due, one at a time, until none is left or `signal`
 * is aborted (a claimed message is then tried once more after its claim
 * runs out). A failure is tried again after a doubling wait, up to
 * MAIL_MAX_ATTEMPTS; a refusal of the message itself (5xx) is final at once.
 * A message the server accepted but whose success was not recorded (the
 * process died in between) is sent again: delivery is at least once.
 */
export async function deliverMail(deps: {
  store: MailOutboxStore;
  transport: MailTransport;
  clock: Clock;
  logger: Logger;
  /** Where a message given up on is recorded (`mail.failed`). */
  audit: Pick<AuditLogStore, 'record'>;
  signal?: AbortSignal;
}): Promise<MailDeliveryRun> {
  const { store, transport, clock, logger, audit, signal } = deps;
  const run: MailDeliveryRun = { sent: 0, retried: 0, failed: 0, pruned: 0 };
  for (;;) {
    if (signal?.aborted) break;
    const now = clock();
    const claimed = await store.claimDue(new Date(now), new Date(now + CLAIM_MS), CLAIM_BATCH);
    for (const mail of claimed) {
      if (signal?.aborted) break;
      const outcome = await transport.send({
        to: mail.recipient,
        subject: mail.subject,
        text: mail.textBody ?? '',
        html: mail.htmlBody ?? '',
      });
      const at = clock();
      if (outcome.sent) {
        await store.markSent(mail.id, outcome.response, new Date(at));
        run.sent++;
        continue;
      }
      const final = outcome.permanent || mail.attempts >= MAIL_MAX_ATTEMPTS;
      const retryAt = final ? null : new Date(at + retryDelayMs(mail.attempts));
      await store.markFailed(mail.id, outcome.response, new Date(at), retryAt);
      if (final) {
        run.failed++;
        const details = { template: mail.template, attempts: mail.attempts };
        logger.warn('mail given up on', { id: mail.id, ...details, response: outcome.response });
        await audit.record(toolContext(at), {
          action: 'mail.failed',
          target: String(mail.id),
          details: { ...details, response: cutText(outcome.response, MAIL_FAILED_RESPONSE_MAX) },
        });
      } else run.retried++;
    }
    if (claimed.length < CLAIM_BATCH) break;
  }
  run.pruned = await store.pruneFinished(new Date(clock() - MAIL_KEPT_MS));
  return run;
}
