import type { AuditContext } from '@/audit/record';
import type { User } from '@/db/sqlite/schema';
import { step } from '@/kernel/steps';
import { type MailNotificationKind, type Notice, notificationMail } from '@/mail/notifications';
import type { MailData } from '@/mail/render';
import type { AccountTables } from './tables';

export type { Notice } from '@/mail/notifications';

/**
 * Notification messages one address is sent per clock hour; the ones past
 * it are dropped (`notification.dropped`), so no caller can make the
 * service mail an address without end. Verification, reset and change of
 * address links are not notifications: never counted, never dropped.
 */
export const NOTIFICATIONS_PER_ADDRESS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

/**
 * Queues a `kind` notification to the account holder in the transaction
 * of the change it tells of, with its `notification.queued` event: a
 * change rolled back sends nothing, and a change committed has its message
 * in the outbox (the mail-delivery job sends it). Nothing when the
 * operator turned the kind off, or no notice is given. Past
 * NOTIFICATIONS_PER_ADDRESS_PER_HOUR to its address this clock hour (a
 * counter that commits with the change, so rolled-back changes use none),
 * the message is dropped and `notification.dropped` says so instead.
 */
export function* queueNotification(
  tables: AccountTables,
  audit: AuditContext,
  notice: Notice | undefined,
  message: { kind: MailNotificationKind; user: Pick<User, 'id' | 'email'>; data?: MailData },
) {
  const mail = notificationMail(notice, message.kind, message.user.email, message.data);
  if (!mail) return;
  const hour = Math.floor(audit.at / HOUR_MS) * HOUR_MS;
  const counted = yield* step(
    tables.countInWindow(`notifications to ${mail.recipient} ${hour}`, hour + HOUR_MS),
  );
  if (counted > NOTIFICATIONS_PER_ADDRESS_PER_HOUR) {
    return yield* step(
      tables.recordAudit(audit, {
        action: 'notification.dropped',
        subject: message.user.id,
        details: { kind: message.kind },
      }),
    );
  }
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
