import type { MailNotificationKind } from '@/config';
import type { MailLanguage, MailText } from './text';

/** A message's last lines, in plain text and in HTML. */
interface Closing {
  text: readonly string[];
  html: readonly string[];
}

/** The closing every notification shares: where to look, and what to do if it was not you. */
const closing = {
  en: {
    text: [
      'Your recent security events are on your account page:',
      '',
      '{{link}}',
      '',
      'If this was not you, choose a new password ("Forgot your password?" on that page) and sign out your other sessions.',
    ],
    html: [
      '<p><a href="{{link}}">See your recent security events</a></p>',
      '<p>If this was not you, choose a new password (“Forgot your password?” on that page) and sign out your other sessions.</p>',
    ],
  },
  es: {
    text: [
      'Tus eventos de seguridad recientes están en la página de tu cuenta:',
      '',
      '{{link}}',
      '',
      'Si no fuiste tú, elige una contraseña nueva («¿Olvidaste tu contraseña?» en esa página) y cierra tus otras sesiones.',
    ],
    html: [
      '<p><a href="{{link}}">Ver tus eventos de seguridad recientes</a></p>',
      '<p>Si no fuiste tú, elige una contraseña nueva («¿Olvidaste tu contraseña?» en esa página) y cierra tus otras sesiones.</p>',
    ],
  },
} as const satisfies Record<MailLanguage, Closing>;

/** A notification: its subject and first lines, then the shared closing. */
function notification(
  language: MailLanguage,
  subject: string,
  lines: readonly string[],
  last: Closing = closing[language],
): MailText {
  return {
    subject,
    text: [...lines, '', ...last.text].join('\n'),
    html: [...lines.map((line) => `<p>${line}</p>`), ...last.html].join('\n'),
  };
}

/** Closing of the message to a disabled account, which cannot sign in to see its log. */
const disabledClosing = {
  en: {
    text: [
      'You cannot sign in while it is disabled. If you think this is a mistake, contact the service.',
      '',
      'Your security events stay on your account page: {{link}}',
    ],
    html: [
      '<p>You cannot sign in while it is disabled. If you think this is a mistake, contact the service.</p>',
      '<p><a href="{{link}}">Your security events</a> stay on your account page.</p>',
    ],
  },
  es: {
    text: [
      'No puedes iniciar sesión mientras esté desactivada. Si crees que es un error, ponte en contacto con el servicio.',
      '',
      'Tus eventos de seguridad siguen en la página de tu cuenta: {{link}}',
    ],
    html: [
      '<p>No puedes iniciar sesión mientras esté desactivada. Si crees que es un error, ponte en contacto con el servicio.</p>',
      '<p><a href="{{link}}">Tus eventos de seguridad</a> siguen en la página de tu cuenta.</p>',
    ],
  },
} as const satisfies Record<MailLanguage, Closing>;

/**
 * The security notifications (docs/accounts.md#notifications), one
 * template per kind, each linking to the account's security log
 * (`{{link}}`). Lines are plain text and HTML alike, so they hold no markup.
 */
export const NOTIFICATION_TEMPLATES = {
  'password-changed': {
    en: notification('en', 'Your {{service}} password was changed', [
      'The password of your {{service}} account was changed, and every other session was signed out.',
    ]),
    es: notification('es', 'Se cambió tu contraseña de {{service}}', [
      'Se cambió la contraseña de tu cuenta de {{service}} y se cerraron todas las demás sesiones.',
    ]),
  },
  'passkey-added': {
    en: notification('en', 'A passkey was added to your {{service}} account', [
      'A passkey named “{{name}}” was added to your {{service}} account: it can now sign in as you.',
    ]),
    es: notification('es', 'Se añadió una llave de acceso a tu cuenta de {{service}}', [
      'Se añadió una llave de acceso llamada «{{name}}» a tu cuenta de {{service}}: ahora puede iniciar sesión como tú.',
    ]),
  },
  'new-device': {
    en: notification('en', 'New sign-in to your {{service}} account', [
      'Your {{service}} account was signed in to from {{device}} at {{address}}, a device none of your current sessions uses.',
    ]),
    es: notification('es', 'Nuevo inicio de sesión en tu cuenta de {{service}}', [
      'Se inició sesión en tu cuenta de {{service}} desde {{device}} en {{address}}, un dispositivo que no usa ninguna de tus sesiones actuales.',
    ]),
  },
  'account-disabled': {
    en: notification(
      'en',
      'Your {{service}} account was disabled',
      ['An operator of {{service}} disabled your account and signed out all of its sessions.'],
      disabledClosing.en,
    ),
    es: notification(
      'es',
      'Se desactivó tu cuenta de {{service}}',
      ['Un operador de {{service}} desactivó tu cuenta y cerró todas sus sesiones.'],
      disabledClosing.es,
    ),
  },
} as const satisfies Record<MailNotificationKind, Record<MailLanguage, MailText>>;
