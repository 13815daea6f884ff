import nodemailer from 'nodemailer';
import type { MailSettings, SmtpSettings } from '@/config';
import type { Logger } from '@/logger';
import type { RenderedMail } from './render';

export interface OutgoingMail extends RenderedMail {
  to: string;
}

/**
 * What became of one attempt: the server's answer either way. `permanent`:
 * the server refused the message itself (a 5xx reply), so trying again
 * cannot help; anything else (no connection, a timeout, a 4xx) may pass later.
 */
export type SendOutcome =
  | { sent: true; response: string }
  | { sent: false; permanent: boolean; response: string };

export interface MailTransport {
  /** `smtp`, or `log` when no SMTP server is set. */
  readonly kind: 'smtp' | 'log';
  send(mail: OutgoingMail): Promise<SendOutcome>;
  /** Closes pooled connections (none are kept open between messages). */
  close(): void;
}

/** Past these an attempt is a failure, to be tried again later (mail never holds a request). */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
/** The longest one attempt can take: a claim on a message lasts longer than this. */
export const LONGEST_ATTEMPT_MS = CONNECTION_TIMEOUT_MS + GREETING_TIMEOUT_MS + SOCKET_TIMEOUT_MS;

/** An error nodemailer reports: the server's reply, its code and the command it answered. */
interface SmtpFailure {
  message?: string;
  response?: string;
  responseCode?: number;
  command?: string;
}

/** The commands that carry the message itself: its sender, a recipient, its content. */
const MESSAGE_COMMANDS = new Set(['MAIL FROM', 'RCPT TO', 'DATA']);

/**
 * A 5xx reply to the message itself is final. Any other failure is not:
 * a refused login or a server without STARTTLS are the operator's settings
 * to fix, and the message waits for them.
 */
function failureOf(error: unknown): SendOutcome {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as SmtpFailure;
  const code = failure.responseCode;
  return {
    sent: false,
    permanent: code !== undefined && code >= 500 && MESSAGE_COMMANDS.has(failure.command ?? ''),
    response: failure.response ?? failure.message ?? String(error),
  };
}

/** Sends through the SMTP server of `smtp` as `from`, one connection per message. */
export function smtpTransport(smtp: SmtpSettings, from: string): MailTransport {
  const transporter = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tls === 'implicit',
    // starttls: a server that does not offer STARTTLS is refused, never written to in the clear.
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.password } } : {}),
    ...(smtp.tlsCa ? { tls: { ca: smtp.tlsCa } } : {}),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  return {
    kind: 'smtp',
    async send(mail) {
      try {
        const info = await transporter.sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        return { sent: true, response: info.response };
      } catch (error) {
        return failureOf(error);
      }
    },
    close: () => transporter.close(),
  };
}

/** Without an SMTP server: each message is written to the log, whole, so every flow can be followed. */
export function logTransport(logger: Logger): MailTransport {
  return {
    kind: 'log',
    async send(mail) {
      logger.info('mail written to the log (no SMTP_HOST)', {
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
      return { sent: true, response: 'written to the log (no SMTP_HOST)' };
    },
    close: () => {},
  };
}

/** The transport the settings name. */
export const mailTransportOf = (settings: MailSettings, logger: Logger): MailTransport =>
  settings.smtp ? smtpTransport(settings.smtp, settings.from) : logTransport(logger);
