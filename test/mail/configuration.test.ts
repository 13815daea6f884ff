import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, shownValue } from '@/config';
import { tempDir } from '../support/harness';

const CERT = `-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n`;

function configOf(env: Record<string, string>) {
  return parseConfig({ DATABASE_PATH: join(tempDir(), 'app.db'), ...env });
}
const refusal = (env: Record<string, string>) => {
  try {
    configOf(env);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};
const SERVER = { SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'Listings <listings@example.com>' };

describe('mail settings: happy', () => {
  test('without SMTP_HOST mail goes to the log, from a local address', () => {
    expect(configOf({}).mail).toEqual({
      from: 'listings@localhost',
      notifications: ['password-changed', 'passkey-added', 'new-device', 'account-disabled'],
    });
  });

  test('the port follows the TLS mode unless set', () => {
    const portOf = (env: Record<string, string>) => configOf({ ...SERVER, ...env }).mail.smtp?.port;
    expect(portOf({})).toBe(587);
    expect(portOf({ SMTP_TLS: 'implicit' })).toBe(465);
    expect(portOf({ SMTP_TLS: 'none' })).toBe(25);
    expect(portOf({ SMTP_TLS: 'implicit', SMTP_PORT: '2465' })).toBe(2465);
  });

  test('every setting lands in config.mail; the password file loses one trailing line break', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'password'), 'p@ss word\n');
    writeFileSync(join(dir, 'ca.pem'), CERT);
    expect(
      configOf({
        ...SERVER,
        SMTP_USER: 'mailer',
        SMTP_PASSWORD_FILE: join(dir, 'password'),
        SMTP_TLS_CA_FILE: join(dir, 'ca.pem'),
      }).mail,
    ).toEqual({
      from: 'Listings <listings@example.com>',
      notifications: ['password-changed', 'passkey-added', 'new-device', 'account-disabled'],
      smtp: {
        host: 'smtp.example.com',
        port: 587,
        tls: 'starttls',
        auth: { user: 'mailer', password: 'p@ss word' },
        tlsCa: CERT,
      },
    });
  });

  test('MAIL_NOTIFICATIONS lists the notifications left on; none turns every one off', () => {
    const kinds = (value: string) => configOf({ MAIL_NOTIFICATIONS: value }).mail.notifications;
    expect(kinds('new-device, password-changed')).toEqual(['new-device', 'password-changed']);
    expect(kinds('none')).toEqual([]);
  });

  test('MAIL_FROM may be a bare address', () => {
    expect(configOf({ ...SERVER, MAIL_FROM: 'a@example.com' }).mail.from).toBe('a@example.com');
  });
});

describe('mail settings: error', () => {
  test('an unknown notification stops the start naming it and the known ones', () => {
    expect(refusal({ MAIL_NOTIFICATIONS: 'new-device,email-changed' })).toContain(
      'MAIL_NOTIFICATIONS: "email-changed" is not one of password-changed, passkey-added, new-device, account-disabled (or none)',
    );
  });

  test('each setting that cannot apply stops the start naming itself', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'empty'), '');
    writeFileSync(join(dir, 'not-pem'), 'hello');
    expect({
      strayPort: refusal({ SMTP_PORT: '25' }),
      strayUser: refusal({ SMTP_USER: 'u', SMTP_PASSWORD: 'p' }),
      noFrom: refusal({ SMTP_HOST: 'smtp.example.com' }),
      badFrom: refusal({ ...SERVER, MAIL_FROM: 'Listings <not an address>' }),
      headerInjection: refusal({ ...SERVER, MAIL_FROM: 'a@example.com\r\nBcc: b@example.com' }),
      badTls: refusal({ ...SERVER, SMTP_TLS: 'ssl' }),
      badPort: refusal({ ...SERVER, SMTP_PORT: '0' }),
      userOnly: refusal({ ...SERVER, SMTP_USER: 'u' }),
      passwordOnly: refusal({ ...SERVER, SMTP_PASSWORD: 'p' }),
      both: refusal({
        ...SERVER,
        SMTP_USER: 'u',
        SMTP_PASSWORD: 'p',
        SMTP_PASSWORD_FILE: join(dir, 'empty'),
      }),
      emptyFile: refusal({ ...SERVER, SMTP_USER: 'u', SMTP_PASSWORD_FILE: join(dir, 'empty') }),
      missingFile: refusal({ ...SERVER, SMTP_USER: 'u', SMTP_PASSWORD_FILE: join(dir, 'none') }),
      caNotPem: refusal({ ...SERVER, SMTP_TLS_CA_FILE: join(dir, 'not-pem') }),
      caWithoutTls: refusal({
        ...SERVER,
        SMTP_TLS: 'none',
        SMTP_TLS_CA_FILE: join(dir, 'not-pem'),
      }),
    }).toEqual({
      strayPort: 'SMTP_PORT: is set, but SMTP_HOST is not',
      strayUser: 'SMTP_USER: is set, but SMTP_HOST is not',
      noFrom: 'MAIL_FROM: required with SMTP_HOST (e.g. "Listings <listings@example.com>")',
      badFrom: expect.stringMatching(/^MAIL_FROM: not an address such as/),
      headerInjection: expect.stringMatching(/^MAIL_FROM: not an address such as/),
      badTls: expect.stringMatching(/^SMTP_TLS: /),
      badPort: expect.stringMatching(/^SMTP_PORT: must be a port from 1 to 65535/),
      userOnly:
        'SMTP_PASSWORD: SMTP_USER is set, so SMTP_PASSWORD or SMTP_PASSWORD_FILE is required',
      passwordOnly: 'SMTP_USER: required with SMTP_PASSWORD or SMTP_PASSWORD_FILE',
      both: 'SMTP_PASSWORD_FILE: set SMTP_PASSWORD or SMTP_PASSWORD_FILE, not both',
      emptyFile: `SMTP_PASSWORD_FILE: "${join(dir, 'empty')}" is empty`,
      missingFile: `SMTP_PASSWORD_FILE: "${join(dir, 'none')}" cannot be read`,
      caNotPem: `SMTP_TLS_CA_FILE: "${join(dir, 'not-pem')}" holds no PEM certificate`,
      caWithoutTls: 'SMTP_TLS_CA_FILE: is set, but SMTP_TLS is none',
    });
  });

  test('an error message shows SMTP_PASSWORD by its length only', () => {
    expect(shownValue('SMTP_PASSWORD', 'hunter22')).toBe('8 characters, not shown');
  });
});
