import { parseAcceptLanguage } from '@/content/language';
import type { MailNotificationKind, MailNotifications, Notice } from '@/mail/notifications';
import { mailLanguageOf } from '@/mail/render';
import type { MailLanguage } from '@/mail/templates';

/** The language a message caused by this request is written in: its Accept-Language's first the service writes mail in, else English. */
export const mailLanguageOfRequest = (request: Request): MailLanguage =>
  mailLanguageOf(parseAcceptLanguage(request.headers.get('accept-language')));

/** The notice of a change this request makes: the operator's notifications, in the request's language. */
export const noticeOf = (request: Request, notifications: MailNotifications): Notice => ({
  notifications,
  language: mailLanguageOfRequest(request),
});

/** What a route's OpenAPI description says of the notification it queues. */
export const notifiedText = (kind: MailNotificationKind, when = '') =>
  `Mails the account holder a \`${kind}\` notification${when}, in the language of Accept-Language, unless MAIL_NOTIFICATIONS leaves it out.`;
