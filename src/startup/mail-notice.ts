import type { Config } from '@/config';

/**
 * The one warning a start prints about mail: anyone may sign up, yet no
 * mail leaves the machine, so a mailed link (a password reset) reaches
 * only the log (under `verify`, a new account's link too). Nothing when
 * SMTP_HOST is set or sign-up is closed.
 */
export function mailWarningOf(config: Pick<Config, 'mail' | 'accounts'>): string | undefined {
  const { signUp } = config.accounts;
  if (config.mail.smtp || signUp === 'closed') return undefined;
  return `SIGN_UP is ${signUp} but SMTP_HOST is not set: mail is written to the log, not sent; set SMTP_HOST and MAIL_FROM (docs/configuration.md#mail)`;
}
