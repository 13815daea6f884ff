import type { MailLanguage, MailText } from './text';

/**
 * The messages about an account's address (docs/accounts.md#email-verification):
 * the link that verifies it after a sign-up, the link that confirms a new
 * one (sent to the new address) and the notice of the change (sent to the
 * old one).
 */
export const EMAIL_TEMPLATES = {
  'email-verification': {
    en: {
      subject: 'Verify your email address for {{service}}',
      text: [
        'Welcome to {{service}}.',
        '',
        'To verify that this address is yours and start using your account, open this link within {{hours}} hours:',
        '',
        '{{link}}',
        '',
        'The link works once. If you did not sign up, ignore this message.',
      ].join('\n'),
      html: [
        '<p>Welcome to {{service}}.</p>',
        '<p>To verify that this address is yours and start using your account, open this link within {{hours}} hours:</p>',
        '<p><a href="{{link}}">Verify my email address</a></p>',
        '<p>The link works once. If you did not sign up, ignore this message.</p>',
      ].join('\n'),
    },
    es: {
      subject: 'Verifica tu dirección de correo en {{service}}',
      text: [
        'Te damos la bienvenida a {{service}}.',
        '',
        'Para verificar que esta dirección es tuya y empezar a usar tu cuenta, abre este enlace en las próximas {{hours}} horas:',
        '',
        '{{link}}',
        '',
        'El enlace sirve una sola vez. Si no te registraste, ignora este mensaje.',
      ].join('\n'),
      html: [
        '<p>Te damos la bienvenida a {{service}}.</p>',
        '<p>Para verificar que esta dirección es tuya y empezar a usar tu cuenta, abre este enlace en las próximas {{hours}} horas:</p>',
        '<p><a href="{{link}}">Verificar mi dirección de correo</a></p>',
        '<p>El enlace sirve una sola vez. Si no te registraste, ignora este mensaje.</p>',
      ].join('\n'),
    },
  },
  'email-change-confirm': {
    en: {
      subject: 'Confirm your new email address for {{service}}',
      text: [
        'Someone asked to use this address for a {{service}} account.',
        '',
        'To confirm it, open this link within {{hours}} hours:',
        '',
        '{{link}}',
        '',
        'The link works once; until it is followed the account keeps its current address.',
        'If you did not ask for this, ignore this message.',
      ].join('\n'),
      html: [
        '<p>Someone asked to use this address for a {{service}} account.</p>',
        '<p>To confirm it, open this link within {{hours}} hours:</p>',
        '<p><a href="{{link}}">Confirm my new email address</a></p>',
        '<p>The link works once; until it is followed the account keeps its current address.</p>',
        '<p>If you did not ask for this, ignore this message.</p>',
      ].join('\n'),
    },
    es: {
      subject: 'Confirma tu nueva dirección de correo en {{service}}',
      text: [
        'Alguien pidió usar esta dirección en una cuenta de {{service}}.',
        '',
        'Para confirmarla, abre este enlace en las próximas {{hours}} horas:',
        '',
        '{{link}}',
        '',
        'El enlace sirve una sola vez; hasta que se abra, la cuenta conserva su dirección actual.',
        'Si no lo pediste, ignora este mensaje.',
      ].join('\n'),
      html: [
        '<p>Alguien pidió usar esta dirección en una cuenta de {{service}}.</p>',
        '<p>Para confirmarla, abre este enlace en las próximas {{hours}} horas:</p>',
        '<p><a href="{{link}}">Confirmar mi nueva dirección de correo</a></p>',
        '<p>El enlace sirve una sola vez; hasta que se abra, la cuenta conserva su dirección actual.</p>',
        '<p>Si no lo pediste, ignora este mensaje.</p>',
      ].join('\n'),
    },
  },
  'email-change-notice': {
    en: {
      subject: 'The email address of your {{service}} account was changed',
      text: [
        'The email address of your {{service}} account is now {{email}}.',
        'Messages about the account go to that address from now on.',
        '',
        'If you did not make this change, contact the operator of {{service}} at once.',
        'Your account security log: {{link}}',
      ].join('\n'),
      html: [
        '<p>The email address of your {{service}} account is now <strong>{{email}}</strong>.</p>',
        '<p>Messages about the account go to that address from now on.</p>',
        '<p>If you did not make this change, contact the operator of {{service}} at once.</p>',
        '<p><a href="{{link}}">Your account security log</a></p>',
      ].join('\n'),
    },
    es: {
      subject: 'Se cambió la dirección de correo de tu cuenta de {{service}}',
      text: [
        'La dirección de correo de tu cuenta de {{service}} es ahora {{email}}.',
        'Desde ahora los mensajes sobre la cuenta van a esa dirección.',
        '',
        'Si no hiciste este cambio, avisa cuanto antes a quien opera {{service}}.',
        'El registro de seguridad de tu cuenta: {{link}}',
      ].join('\n'),
      html: [
        '<p>La dirección de correo de tu cuenta de {{service}} es ahora <strong>{{email}}</strong>.</p>',
        '<p>Desde ahora los mensajes sobre la cuenta van a esa dirección.</p>',
        '<p>Si no hiciste este cambio, avisa cuanto antes a quien opera {{service}}.</p>',
        '<p><a href="{{link}}">El registro de seguridad de tu cuenta</a></p>',
      ].join('\n'),
    },
  },
} as const satisfies Record<string, Record<MailLanguage, MailText>>;
