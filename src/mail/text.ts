/** The languages the service writes its messages in, and one message's text in one of them. */
export const MAIL_LANGUAGES = ['en', 'es'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

export interface MailText {
  subject: string;
  /** The plain-text body. */
  text: string;
  /** The HTML body's content, placed inside the shared layout. */
  html: string;
}
