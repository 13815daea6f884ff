/**
 * The messages the service sends, in each language it writes them in. A
 * `{{name}}` is filled from the message's data when it is rendered
 * (./render.ts): escaped in the HTML body, on one line in the subject.
 * Every template has every language, with the same placeholders
 * (test/mail/templates.test.ts).
 */
import { EMAIL_TEMPLATES } from './email-templates';
import { NOTIFICATION_TEMPLATES } from './notification-templates';
import type { MailLanguage, MailText } from './text';

export { MAIL_LANGUAGES, type MailLanguage, type MailText } from './text';

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
  /** The link of a password reset (docs/accounts.md#password-reset). */
  'password-reset': {
    en: {
      subject: 'Reset your {{service}} password',
      text: [
        'Someone asked to reset the password of your {{service}} account.',
        '',
        'To choose a new password, open this link within {{minutes}} minutes:',
        '',
        '{{link}}',
        '',
        'The link works once. Setting a new password signs you out everywhere.',
        'If you did not ask for this, ignore this message: your password stays as it is.',
      ].join('\n'),
      html: [
        '<p>Someone asked to reset the password of your {{service}} account.</p>',
        '<p>To choose a new password, open this link within {{minutes}} minutes:</p>',
        '<p><a href="{{link}}">Choose a new password</a></p>',
        '<p>The link works once. Setting a new password signs you out everywhere.</p>',
        '<p>If you did not ask for this, ignore this message: your password stays as it is.</p>',
      ].join('\n'),
    },
    es: {
      subject: 'Restablece tu contraseña de {{service}}',
      text: [
        'Alguien pidió restablecer la contraseña de tu cuenta de {{service}}.',
        '',
        'Para elegir una contraseña nueva, abre este enlace en los próximos {{minutes}} minutos:',
        '',
        '{{link}}',
        '',
        'El enlace sirve una sola vez. Al poner una contraseña nueva se cierran todas tus sesiones.',
        'Si no lo pediste, ignora este mensaje: tu contraseña no cambia.',
      ].join('\n'),
      html: [
        '<p>Alguien pidió restablecer la contraseña de tu cuenta de {{service}}.</p>',
        '<p>Para elegir una contraseña nueva, abre este enlace en los próximos {{minutes}} minutos:</p>',
        '<p><a href="{{link}}">Elegir una contraseña nueva</a></p>',
        '<p>El enlace sirve una sola vez. Al poner una contraseña nueva se cierran todas tus sesiones.</p>',
        '<p>Si no lo pediste, ignora este mensaje: tu contraseña no cambia.</p>',
      ].join('\n'),
    },
  },
  ...NOTIFICATION_TEMPLATES,
  ...EMAIL_TEMPLATES,
} as const satisfies Record<string, Record<MailLanguage, MailText>>;

export type MailTemplate = keyof typeof MAIL_TEMPLATES;
