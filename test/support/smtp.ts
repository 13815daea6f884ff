/**
 * A real SMTP server for the mail tests (the `smtp-server` package): TLS
 * from a self-signed certificate made here with the openssl CLI, AUTH
 * required, every accepted message parsed (mailparser) and kept. It can
 * go down and come back on the same port, as a mail server does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import * as mailDelivery from '@/workers/mail-delivery';
import { tempDir } from './harness';

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'correct horse battery staple';

export interface TestSmtpServer {
  port: number;
  /** The certificate (its own CA), for SMTP_TLS_CA_FILE. */
  caFile: string;
  /** The messages accepted so far, in order. */
  messages: ParsedMail[];
  /** Each authentication attempt's user name and whether it passed. */
  logins: { user: string; ok: boolean }[];
  /** Whether each accepted message came over TLS. */
  secured: boolean[];
  /** The variables that point the service at this server. */
  env(): Record<string, string>;
  /** Resolves once `count` messages have arrived. */
  received(count: number): Promise<ParsedMail[]>;
  /** Stops listening: connections are refused until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

let certificate: { certFile: string; keyFile: string } | undefined;

/** One self-signed certificate for 127.0.0.1 and localhost per test file. */
function selfSignedCertificate() {
  if (certificate) return certificate;
  const dir = tempDir('listings-smtp-');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  certificate = { certFile, keyFile };
  return certificate;
}

export interface SmtpServerOptions {
  /** `starttls` (default): plain, upgraded on STARTTLS; `implicit`: TLS from the first byte; `none`: no TLS offered. */
  tls?: 'starttls' | 'implicit' | 'none';
  /** Replies 550 to every message (a permanent refusal). */
  refuseMessages?: boolean;
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const tls = options.tls ?? 'starttls';
  const { certFile, keyFile } = selfSignedCertificate();
  const messages: ParsedMail[] = [];
  const logins: { user: string; ok: boolean }[] = [];
  const secured: boolean[] = [];
  const waiters: (() => void)[] = [];
  const make = () =>
    new SMTPServer({
      secure: tls === 'implicit',
      key: readFileSync(keyFile),
      cert: readFileSync(certFile),
      ...(tls === 'none' ? { disabledCommands: ['STARTTLS'], allowInsecureAuth: true } : {}),
      logger: false,
      onAuth(auth, _session, callback) {
        const ok = auth.username === SMTP_USER && auth.password === SMTP_PASSWORD;
        logins.push({ user: auth.username ?? '', ok });
        if (ok) callback(null, { user: auth.username });
        else
          callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onData(stream, session, callback) {
        if (options.refuseMessages) {
          stream.resume();
          stream.on('end', () =>
            callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 })),
          );
          return;
        }
        simpleParser(stream).then(
          (parsed) => {
            messages.push(parsed);
            secured.push(session.secure);
            callback();
            for (const wake of waiters.splice(0)) wake();
          },
          (error: Error) => callback(error),
        );
      },
    });
  let server = make();
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () =>
        resolve((server.server.address() as AddressInfo).port),
      );
    });
  const port = await listen(0);
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const running = {
    port,
    caFile: certFile,
    messages,
    logins,
    secured,
    env: () => ({
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(port),
      SMTP_TLS: tls,
      SMTP_USER,
      SMTP_PASSWORD,
      MAIL_FROM: 'Listings <listings@example.test>',
      ...(tls === 'none' ? {} : { SMTP_TLS_CA_FILE: certFile }),
    }),
    async received(count: number) {
      while (messages.length < count) await new Promise<void>((wake) => waiters.push(wake));
      return messages.slice(0, count);
    },
    stop: close,
    async start() {
      server = make();
      await listen(port);
    },
  };
  return running;
}

/** Sends what the app has queued; the messages that reached `smtp` after the first `before`. */
export async function deliveredSince(
  smtp: TestSmtpServer,
  deps: Parameters<typeof mailDelivery.run>[0],
  before: number,
): Promise<ParsedMail[]> {
  const run = await mailDelivery.run(deps);
  return (await smtp.received(before + (run.sent as number))).slice(before);
}

/** The address a delivered message was sent to. */
export const recipientOf = (message: ParsedMail | undefined) =>
  message?.to && 'text' in message.to ? message.to.text : '';
