import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { tempDir } from '../support/harness';
import { runScript } from '../support/script';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.stop());

const mailTest = (env: Record<string, string>, ...args: string[]) =>
  runScript('mail-test.ts', args, {
    PATH: process.env.PATH ?? '',
    DATABASE_PATH: join(tempDir(), 'app.db'),
    ...env,
  });

describe('mail:test: happy', () => {
  test('sends one message at once and prints the server answer', async () => {
    const before = smtp.messages.length;
    const result = await mailTest(smtp.env(), '--to', 'ops@example.com', '--language', 'es');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^sent to ops@example\\.com through 127\\.0\\.0\\.1:${smtp.port} \\(starttls\\); the server answered: 250 `,
      ),
    );
    const [message] = (await smtp.received(before + 1)).slice(before);
    expect(message?.subject).toBe('Mensaje de prueba de Listings Service');
    expect(smtp.secured.at(-1)).toBe(true);
  });
});

describe('mail:test: error', () => {
  test('without SMTP_HOST nothing is sent: exit 1 naming the variable', async () => {
    expect(await mailTest({}, '--to', 'ops@example.com')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'mail:test: SMTP_HOST is not set, so the server writes mail to its log; set SMTP_HOST and MAIL_FROM (docs/configuration.md#mail)',
    });
  });

  test("a refusal prints the server's answer on stderr, exit 1", async () => {
    const before = smtp.messages.length;
    const result = await mailTest(
      { ...smtp.env(), SMTP_PASSWORD: 'wrong' },
      '--to',
      'ops@example.com',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(
        `^mail:test: not sent through 127\\.0\\.0\\.1:${smtp.port} \\(starttls\\): .*535.*; check the SMTP_\\* variables \\(docs/configuration\\.md#mail\\)$`,
      ),
    );
    expect(smtp.messages.length).toBe(before);
  });

  test('a bad setting or option exits before anything is sent', async () => {
    expect(await mailTest({ SMTP_PORT: '25' }, '--to', 'ops@example.com')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Invalid configuration: SMTP_PORT: is set, but SMTP_HOST is not',
    });
    expect(await mailTest(smtp.env(), '--to', 'not-an-address')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mail:test: --to must be an email address (got "not-an-address")\ntry: npm run mail:test -- --help',
    });
    expect(await mailTest(smtp.env())).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^mail:test: --to is required/),
    });
  });
});
