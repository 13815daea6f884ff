import type { AuditLogStore } from '@/audit/store';
import type { Clock } from '@/kernel/clock';
import type { Logger } from '@/logger';
import { deliverMail } from '@/mail/operations';
import type { MailOutboxStore } from '@/mail/store';
import type { MailTransport } from '@/mail/transport';
import type { JobContext, JobDetails } from './job';

/**
 * Sends the outbox's due messages through the SMTP server (or writes them
 * to the log without one), retrying failures with a doubling wait
 * (docs/accounts.md#mail); a message given up on is recorded in the audit
 * log (`mail.failed`). At shutdown no new attempt starts.
 */
export async function run(
  deps: {
    stores: { mail: MailOutboxStore; audit: Pick<AuditLogStore, 'record'> };
    mailer: MailTransport;
    clock: Clock;
    logger: Logger;
  },
  ctx?: JobContext,
): Promise<JobDetails> {
  return {
    ...(await deliverMail({
      store: deps.stores.mail,
      transport: deps.mailer,
      clock: deps.clock,
      logger: deps.logger,
      audit: deps.stores.audit,
      signal: ctx?.signal,
    })),
  };
}
