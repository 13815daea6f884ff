import type { AuditContext } from '@/audit/record';
import type { User } from '@/db/schema';
import { step } from '@/kernel/steps';
import { type MailNotificationKind, type Notice, notificationMail } from '@/mail/notifications';
import type { MailData } from '@/mail/render';
import type { AccountTables } from './tables';

export type { Notice } from '@/mail/notifications';

/**
 * Queues a `kind` notification to the account holder in the transaction
 * of the change it tells of, with its `notification.queued` event: a
 * change rolled back sends nothing, and a change committed has its message
 * in the outbox (the mail-delivery job sends it). Nothing when the
 * operator turned the kind off, or no notice is given.
 */
export function* queueNotification(
  tables: AccountTables,
  audit: AuditContext,
  notice: Notice | undefined,
  message: { kind: MailNotificationKind; user: Pick<User, 'id' | 'email'>; data?: MailData },
) {
  const mail = notificationMail(notice, message.kind, message.user.email, message.data);
  if (!mail) return;
  const id = yield* step(tables.queueMail(mail, audit.at));
  yield* step(
    tables.recordAudit(audit, {
      action: 'notification.queued',
      subject: message.user.id,
      target: String(id),
      details: { kind: message.kind },
    }),
  );
}

/** Whether a notice would queue `kind` (a check that costs a query is skipped otherwise). */
export const notifies = (notice: Notice | undefined, kind: MailNotificationKind) =>
  notice?.notifications.enabled.has(kind) === true;
