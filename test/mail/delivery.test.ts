import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger } from '@/logger';
import {
  MAIL_MAX_ATTEMPTS,
  MAIL_RETRY_FIRST_MS,
  type MailRequest,
  queueMail,
  retryDelayMs,
} from '@/mail/operations';
import { logTransport } from '@/mail/transport';
import * as mailDelivery from '@/workers/mail-delivery';
import { createTestApp, manualClock, type TestContext } from '../support/harness';
import { SMTP_USER, startSmtpServer, type TestSmtpServer } from '../support/smtp';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.stop());

const START = Date.UTC(2026, 10, 22, 12, 0, 0);
const testMail = (to: string, service = 'Listings'): MailRequest => ({
  to,
  template: 'test',
  language: 'en',
  data: { service },
});

function appOn(server: TestSmtpServer, env: Record<string, string> = {}) {
  return createTestApp({ clock: manualClock(START), env: { ...server.env(), ...env } });
}
const queue = (app: TestContext, request: MailRequest) =>
  queueMail(app.deps.stores.mail, app.deps.clock, request);
const deliver = (app: TestContext) => mailDelivery.run(app.deps);

describe('mail delivery: happy', () => {
  test('a queued message reaches the SMTP server over STARTTLS, signed in, as text and HTML', async () => {
    const app = appOn(smtp);
    const before = smtp.messages.length;
    const id = await queue(app, testMail('ana@example.com'));
    // Queuing sends nothing: the job does.
    expect(smtp.messages.length).toBe(before);
    expect(await deliver(app)).toEqual({ sent: 1, retried: 0, failed: 0, pruned: 0 });
    const [message] = (await smtp.received(before + 1)).slice(before);
    expect(message?.subject).toBe('Test message from Listings');
    expect(message?.from?.value).toEqual([{ name: 'Listings', address: 'listings@example.test' }]);
    expect(message?.to && 'text' in message.to ? message.to.text : '').toBe('ana@example.com');
    expect(message?.text).toStartWith('This is a test message from Listings.');
    expect(message?.html).toContain('<p>This is a test message from Listings.</p>');
    expect(smtp.secured.at(-1)).toBe(true);
    expect(smtp.logins.at(-1)).toEqual({ user: SMTP_USER, ok: true });
    const row = await app.deps.stores.mail.find(id);
    expect(row).toMatchObject({
      status: 'sent',
      attempts: 1,
      textBody: null,
      htmlBody: null,
      claimedUntil: null,
      finishedAt: new Date(START),
    });
    expect(row?.lastResponse).toStartWith('250');
    // Nothing is due any more: a second run sends nothing.
    expect(await deliver(app)).toEqual({ sent: 0, retried: 0, failed: 0, pruned: 0 });
  });

  test('implicit TLS: TLS from the first byte', async () => {
    const implicit = await startSmtpServer({ tls: 'implicit' });
    try {
      const app = appOn(implicit);
      await queue(app, { ...testMail('ben@example.com'), language: 'es' });
      expect((await deliver(app)).sent).toBe(1);
      const [message] = await implicit.received(1);
      expect(message?.subject).toBe('Mensaje de prueba de Listings');
      expect(implicit.secured).toEqual([true]);
    } finally {
      await implicit.stop();
    }
  });

  test('SMTP down, then up: every message is delivered once, none lost across a restart', async () => {
    const server = await startSmtpServer();
    try {
      const first = appOn(server);
      const ids: number[] = [];
      for (const n of [1, 2, 3])
        ids.push(await queue(first, testMail('c@example.com', `run ${n}`)));
      await server.stop();
      expect(await deliver(first)).toEqual({ sent: 0, retried: 3, failed: 0, pruned: 0 });
      // The service restarts on the same database while the server is still down.
      await first.closeDatabase();
      const clock = manualClock(START);
      const again = createTestApp({ clock, env: server.env(), databaseOf: first });
      for (const id of ids) {
        expect(await again.deps.stores.mail.find(id)).toMatchObject({
          status: 'pending',
          attempts: 1,
          nextAttemptAt: new Date(START + MAIL_RETRY_FIRST_MS),
        });
      }
      // Not yet due: nothing is tried.
      expect(await deliver(again)).toEqual({ sent: 0, retried: 0, failed: 0, pruned: 0 });
      await server.start();
      clock.advance(MAIL_RETRY_FIRST_MS);
      expect(await deliver(again)).toEqual({ sent: 3, retried: 0, failed: 0, pruned: 0 });
      expect((await server.received(3)).map((m) => m.subject)).toEqual([
        'Test message from run 1',
        'Test message from run 2',
        'Test message from run 3',
      ]);
      expect(await deliver(again)).toEqual({ sent: 0, retried: 0, failed: 0, pruned: 0 });
      expect(server.messages.length).toBe(3);
      expect(await again.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    } finally {
      await server.stop();
    }
  });

  test('two runs at once never send one message twice', async () => {
    const server = await startSmtpServer();
    try {
      const app = appOn(server);
      for (const n of [1, 2, 3, 4]) await queue(app, testMail('d@example.com', `pair ${n}`));
      const [a, b] = await Promise.all([deliver(app), deliver(app)]);
      expect((a?.sent as number) + (b?.sent as number)).toBe(4);
      expect((await server.received(4)).map((m) => m.subject).sort()).toEqual([
        'Test message from pair 1',
        'Test message from pair 2',
        'Test message from pair 3',
        'Test message from pair 4',
      ]);
      expect(server.messages.length).toBe(4);
    } finally {
      await server.stop();
    }
  });

  test('without SMTP_HOST the message is written to the log, whole', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    const transport = logTransport(logger);
    expect(
      await transport.send({
        to: 'e@example.com',
        subject: 'S',
        text: 'link: https://x/y',
        html: '',
      }),
    ).toEqual({ sent: true, response: 'written to the log (no SMTP_HOST)' });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        msg: 'mail written to the log (no SMTP_HOST)',
        to: 'e@example.com',
        subject: 'S',
        text: 'link: https://x/y',
      }),
    ]);
  });
});

describe('mail delivery: error', () => {
  test('a failure is tried again after a doubling wait, and given up on after the last attempt', async () => {
    const server = await startSmtpServer();
    await server.stop();
    const app = appOn(server);
    const id = await queue(app, testMail('f@example.com'));
    for (let attempt = 1; attempt < MAIL_MAX_ATTEMPTS; attempt++) {
      expect(await deliver(app)).toEqual({ sent: 0, retried: 1, failed: 0, pruned: 0 });
      const row = await app.deps.stores.mail.find(id);
      expect(row?.attempts).toBe(attempt);
      expect(row?.nextAttemptAt.getTime()).toBe(app.deps.clock() + retryDelayMs(attempt));
      (app.clock as ReturnType<typeof manualClock>).advance(retryDelayMs(attempt));
    }
    expect(await deliver(app)).toEqual({ sent: 0, retried: 0, failed: 1, pruned: 0 });
    expect(await app.deps.stores.mail.find(id)).toMatchObject({
      status: 'failed',
      attempts: MAIL_MAX_ATTEMPTS,
      textBody: null,
      htmlBody: null,
      lastResponse: expect.stringContaining('ECONNREFUSED'),
    });
    expect(await app.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 1 });
    // Given up on: one audit event; the nine attempts before it wrote none.
    const audit = await app.deps.stores.audit.searchAudit({ action: 'mail.failed' });
    expect(audit.events).toEqual([
      expect.objectContaining({
        action: 'mail.failed',
        actor: null,
        target: String(id),
        details: {
          template: 'test',
          attempts: MAIL_MAX_ATTEMPTS,
          response: expect.stringContaining('ECONNREFUSED'),
        },
      }),
    ]);
    expect(retryDelayMs(1)).toBe(30_000);
    expect(retryDelayMs(20)).toBe(3_600_000);
  });

  test('a message the server refuses (5xx) is given up on at once', async () => {
    const refusing = await startSmtpServer({ refuseMessages: true });
    try {
      const app = appOn(refusing);
      const id = await queue(app, testMail('g@example.com'));
      expect(await deliver(app)).toEqual({ sent: 0, retried: 0, failed: 1, pruned: 0 });
      expect(await app.deps.stores.mail.find(id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastResponse: expect.stringMatching(/^550/),
      });
      const audit = await app.deps.stores.audit.searchAudit({ action: 'mail.failed' });
      expect(audit.events.map((event) => [event.target, event.details])).toEqual([
        [String(id), { template: 'test', attempts: 1, response: expect.stringMatching(/^550 /) }],
      ]);
    } finally {
      await refusing.stop();
    }
  });

  test('a refused sign-in is tried again: the settings are the operator to fix', async () => {
    const app = appOn(smtp, { SMTP_PASSWORD: 'wrong password' });
    const id = await queue(app, testMail('h@example.com'));
    expect(await deliver(app)).toEqual({ sent: 0, retried: 1, failed: 0, pruned: 0 });
    expect(smtp.logins.at(-1)).toEqual({ user: SMTP_USER, ok: false });
    expect(await app.deps.stores.mail.find(id)).toMatchObject({
      status: 'pending',
      lastResponse: expect.stringMatching(/^535/),
    });
  });

  test('with starttls, a server that offers no STARTTLS is never written to in the clear', async () => {
    const plain = await startSmtpServer({ tls: 'none' });
    try {
      const app = appOn(plain, { SMTP_TLS: 'starttls' });
      await queue(app, testMail('i@example.com'));
      expect(await deliver(app)).toEqual({ sent: 0, retried: 1, failed: 0, pruned: 0 });
      expect(plain.messages).toEqual([]);
      expect(plain.logins).toEqual([]);
    } finally {
      await plain.stop();
    }
  });

  test('a certificate the service does not trust is refused (no SMTP_TLS_CA_FILE)', async () => {
    const env = smtp.env();
    const app = createTestApp({
      clock: manualClock(START),
      env: Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'SMTP_TLS_CA_FILE')),
    });
    const before = smtp.messages.length;
    await queue(app, testMail('j@example.com'));
    expect(await deliver(app)).toEqual({ sent: 0, retried: 1, failed: 0, pruned: 0 });
    expect(smtp.messages.length).toBe(before);
  });
});

describe('mail outbox retention', () => {
  test('messages sent or given up on are deleted after 30 days; pending ones stay', async () => {
    const app = appOn(smtp);
    const clock = app.clock as ReturnType<typeof manualClock>;
    const sent = await queue(app, testMail('k@example.com'));
    await deliver(app);
    const pending = await queue(app, testMail('l@example.com'));
    await app.deps.stores.mail.claimDue(new Date(START), new Date(START + 86_400_000 * 40), 10);
    clock.advance(30 * 86_400_000 + 1);
    expect((await deliver(app)).pruned).toBe(1);
    expect(await app.deps.stores.mail.find(sent)).toBeUndefined();
    expect(await app.deps.stores.mail.find(pending)).toMatchObject({ status: 'pending' });
  });
});
