import type { Config, MailNotificationKind } from '@/config';

export type { MailNotificationKind } from '@/config';

import { outboxRowOf } from './operations';
import type { MailData } from './render';
import type { NewMail } from './store';
import type { MailLanguage } from './templates';

/** Where every notification points: the security log on the account page. */
export const SECURITY_LOG_PATH = '/account#security-log';

/** The notifications the operator left on, and what their messages name. */
export interface MailNotifications {
  enabled: ReadonlySet<MailNotificationKind>;
  /** The service's public origin, which the link starts with. */
  origin: string;
  /** The service's name, as the messages say it. */
  service: string;
}

export const mailNotificationsOf = (
  config: Pick<Config, 'mail' | 'publicOrigins' | 'rpName'>,
): MailNotifications => ({
  enabled: new Set(config.mail.notifications),
  origin: config.publicOrigins[0]!,
  service: config.rpName,
});

/** Whom a change is told to, in which language; the notifications it may send. */
export interface Notice {
  notifications: MailNotifications;
  language: MailLanguage;
}

/** The outbox row of a `kind` notification to `to`, or undefined when the operator turned it off. */
export function notificationMail(
  notice: Notice | undefined,
  kind: MailNotificationKind,
  to: string,
  data: MailData = {},
): NewMail | undefined {
  if (!notice?.notifications.enabled.has(kind)) return undefined;
  const { origin, service } = notice.notifications;
  return outboxRowOf({
    to,
    template: kind,
    language: notice.language,
    data: { ...data, service, link: `${origin}${SECURITY_LOG_PATH}` },
  });
}
