/**
 * The messages the service sends, in each language it writes them in. A
 * `{{name}}` is filled from the message's data when it is rendered
 * (./render.ts): escaped in the HTML body, on one line in the subject.
 * Every template has every language, with the same placeholders
 * (test/mail/templates.test.ts).
 */
export const MAIL_LANGUAGES = ['en', 'es'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

export interface MailText {
  subject: string;
  /** The plain-text body. */
  text: string;
  /** The HTML body's content, placed inside the shared layout. */
  html: string;
}

export const MAIL_TEMPLATES = {
  /** Sent by `mail:test` to check the SMTP settings. */
  test: {
    en: {
      subject: 'Test message from {{service}}',
      text: [
        'This is a test message from {{service}}.',
        '',
        'It was sent by the mail:test command to check the outgoing mail settings.',
        'Nothing needs to be done.',
      ].join('\n'),
      html: [
        '<p>This is a test message from {{service}}.</p>',
        '<p>It was sent by the <code>mail:test</code> command to check the outgoing mail settings. Nothing needs to be done.</p>',
      ].join('\n'),
    },
    es: {
      subject: 'Mensaje de prueba de {{service}}',
      text: [
        'Este es un mensaje de prueba de {{service}}.',
        '',
        'Lo envió la orden mail:test para comprobar la configuración del correo saliente.',
        'No hace falta hacer nada.',
      ].join('\n'),
      html: [
        '<p>Este es un mensaje de prueba de {{service}}.</p>',
        '<p>Lo envió la orden <code>mail:test</code> para comprobar la configuración del correo saliente. No hace falta hacer nada.</p>',
      ].join('\n'),
    },
  },
} as const satisfies Record<string, Record<MailLanguage, MailText>>;

export type MailTemplate = keyof typeof MAIL_TEMPLATES;
