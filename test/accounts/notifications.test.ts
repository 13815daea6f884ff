import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { ParsedMail } from 'mailparser';
import { NOTIFICATIONS_PER_ADDRESS_PER_HOUR } from '@/accounts/notifications';
import { parseConfig } from '@/config';
import { createLogger } from '@/logger';
import { SECURITY_LOG_PATH } from '@/mail/notifications';
import { mailTransportOf } from '@/mail/transport';
import * as mailDelivery from '@/workers/mail-delivery';
import { COMMAND_DATABASES, type FreshDatabase } from '../scripts/databases';
import { runScript } from '../support/script';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { ORIGIN, PASSWORD, type SignedIn } from './support';

const EVERY_NOTIFICATION = 'password-changed,passkey-added,new-device,account-disabled';
const LINK = `${ORIGIN}${SECURITY_LOG_PATH}`;
const NEW_PASSWORD = 'a brand new passphrase';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
const FIREFOX_LINUX_NEWER =
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

// Started before the suites are collected: their apps are built with its settings.
const smtp: TestSmtpServer = await startSmtpServer();
afterAll(() => smtp.stop());

const recipientOf = (message: ParsedMail) =>
  message.to && 'text' in message.to ? message.to.text : '';

/** A delivered notification: its recipient, subject, and the link to the security log in both bodies. */
function expectNotification(message: ParsedMail | undefined, to: string, subject: string) {
  expect([message && recipientOf(message), message?.subject]).toEqual([to, subject]);
  expect(message?.text).toContain(LINK);
  expect(message?.html).toContain(`<a href="${LINK}">`);
}

for (const under of storesUnderTest()) {
  under.describe('notifications: each change queued in its transaction, delivered by SMTP', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { ...smtp.env(), MAIL_NOTIFICATIONS: EVERY_NOTIFICATION } });
    });

    /**
     * Runs `action`, then sends what is queued: the messages to `to` that
     * reached the server, and the kinds of the notification events written.
     */
    async function notified(to: string, action: () => Promise<unknown>) {
      // What earlier steps queued goes first, so only this action's messages count.
      await mailDelivery.run(ctx.deps);
      const before = smtp.messages.length;
      const events = await ctx.eventsWrittenBy(action);
      const run = await mailDelivery.run(ctx.deps);
      const messages = (await smtp.received(before + (run.sent as number))).slice(before);
      return {
        messages: messages.filter((message) => recipientOf(message) === to),
        kinds: events
          .filter((event) => event.action === 'notification.queued')
          .map((event) => [event.subjectId, event.details.kind]),
      };
    }

    async function signInFrom(email: string, userAgent: string, password = PASSWORD) {
      const res = await ctx.request<{ accessToken: string; user: SignedIn['user'] }>(
        'POST',
        '/auth/sign-in',
        { body: { email, password }, headers: { 'user-agent': userAgent } },
      );
      expect(res.status).toBe(200);
      return {
        user: res.body.user,
        token: res.body.accessToken,
        cookie: res.headers.get('set-cookie')?.split(';')[0] ?? '',
      };
    }

    const employee = async () => {
      const user = await ctx.createAccount(undefined, 'employee');
      return signInFrom(user.email, FIREFOX_LINUX);
    };

    test('happy: a sign-in from a device none of the live sessions used is told; the same device again is not', async () => {
      const user = await ctx.createAccount();
      const first = await notified(user.email, () => signInFrom(user.email, FIREFOX_LINUX));
      expect(first.kinds).toEqual([[user.id, 'new-device']]);
      expectNotification(
        first.messages[0],
        user.email,
        'New sign-in to your Listings Service account',
      );
      expect(first.messages[0]?.text).toContain('from Firefox on Linux at 127.0.0.1');

      // A newer version of the same browser on the same system and network: the same device.
      const same = await notified(user.email, () => signInFrom(user.email, FIREFOX_LINUX_NEWER));
      expect(same).toEqual({ messages: [], kinds: [] });

      const other = await notified(user.email, () => signInFrom(user.email, CHROME_MAC));
      expect(other.kinds).toEqual([[user.id, 'new-device']]);
      expect(other.messages.map((message) => message.subject)).toEqual([
        'New sign-in to your Listings Service account',
      ]);
      expect(other.messages[0]?.text).toContain('from Chrome on macOS at 127.0.0.1');
    });

    test('happy: a password changed on /account is told in the language of the request', async () => {
      const user = await ctx.createAccount();
      const session = await signInFrom(user.email, FIREFOX_LINUX);
      const { messages, kinds } = await notified(user.email, async () => {
        const res = await ctx.browser(session, 'POST', '/auth/password', {
          body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
          headers: { 'accept-language': 'es-ES,es;q=0.9' },
        });
        expect(res.status).toBe(204);
      });
      expect(kinds).toEqual([[user.id, 'password-changed']]);
      expectNotification(messages[0], user.email, 'Se cambió tu contraseña de Listings Service');
      expect(messages[0]?.html).toContain('<html lang="es">');
    });

    test('happy: a password changed through the API with a bearer token is told', async () => {
      const user = await ctx.createAccount();
      const session = await signInFrom(user.email, FIREFOX_LINUX);
      const { messages, kinds } = await notified(user.email, async () => {
        const res = await ctx.request('POST', '/auth/password', {
          token: session.token,
          body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        });
        expect(res.status).toBe(204);
      });
      expect(kinds).toEqual([[user.id, 'password-changed']]);
      expectNotification(messages[0], user.email, 'Your Listings Service password was changed');
    });

    test('happy: a password set by a reset link is told', async () => {
      const user = await ctx.createAccount();
      const asked = await notified(user.email, async () => {
        const res = await ctx.request('POST', '/auth/password-reset', {
          body: { email: user.email },
        });
        expect(res.status).toBe(202);
      });
      const token = /\/account#reset=([\w-]+)/.exec(asked.messages[0]?.text ?? '')?.[1];
      const { messages, kinds } = await notified(user.email, async () => {
        const res = await ctx.request('POST', '/auth/password-reset/confirm', {
          body: { token, password: NEW_PASSWORD },
        });
        expect(res.status).toBe(204);
      });
      expect(kinds).toEqual([[user.id, 'password-changed']]);
      expectNotification(messages[0], user.email, 'Your Listings Service password was changed');
    });

    test('happy: a password set by an employee (POST /admin/users/{id}/password) is told', async () => {
      const staff = await employee();
      const user = await ctx.createAccount();
      const { messages, kinds } = await notified(user.email, async () => {
        const res = await ctx.request('POST', `/admin/users/${user.id}/password`, {
          token: staff.token,
          body: { password: NEW_PASSWORD },
        });
        expect(res.status).toBe(204);
      });
      expect(kinds).toEqual([[user.id, 'password-changed']]);
      expectNotification(messages[0], user.email, 'Your Listings Service password was changed');
    });

    test('happy: a passkey added is told, with its name', async () => {
      const session = await ctx.newUser();
      const { email, id } = session.user;
      const { messages, kinds } = await notified(email, async () => {
        const res = await ctx.register(session, ctx.newAuthenticator(), {}, 'Work laptop');
        expect(res.status).toBe(201);
      });
      expect(kinds).toEqual([[id, 'passkey-added']]);
      expectNotification(
        messages[0],
        email,
        'A passkey was added to your Listings Service account',
      );
      expect(messages[0]?.text).toContain('A passkey named “Work laptop” was added');
    });

    test('happy: an account disabled by an employee (PATCH /admin/users/{id}) is told; enabling is not', async () => {
      const staff = await employee();
      const user = await ctx.createAccount();
      const path = `/admin/users/${user.id}`;
      const { messages, kinds } = await notified(user.email, async () => {
        const res = await ctx.request('PATCH', path, {
          token: staff.token,
          body: { disabled: true },
        });
        expect(res.status).toBe(200);
      });
      expect(kinds).toEqual([[user.id, 'account-disabled']]);
      expectNotification(messages[0], user.email, 'Your Listings Service account was disabled');
      const enabled = await notified(user.email, async () => {
        const res = await ctx.request('PATCH', path, {
          token: staff.token,
          body: { disabled: false },
        });
        expect(res.status).toBe(200);
      });
      expect(enabled).toEqual({ messages: [], kinds: [] });
    });

    test('error: a change refused (wrong current password) queues nothing', async () => {
      const user = await ctx.createAccount();
      const session = await signInFrom(user.email, FIREFOX_LINUX);
      const { messages, kinds } = await notified(user.email, async () => {
        const res = await ctx.browser(session, 'POST', '/auth/password', {
          body: { currentPassword: 'not the password', newPassword: NEW_PASSWORD },
        });
        expect(res.status).toBe(401);
      });
      expect({ messages, kinds }).toEqual({ messages: [], kinds: [] });
    });
  });

  under.describe('notifications of an account not verified yet', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { ...smtp.env(), MAIL_NOTIFICATIONS: EVERY_NOTIFICATION, SIGN_UP: 'verify' },
      });
    });

    test('error: its sign-ins are not told (the address may be someone else’s); the verification link is its only message', async () => {
      const email = 'not-yet@example.com';
      const signedUp = await ctx.request('POST', '/auth/sign-up', {
        body: { email, password: PASSWORD },
      });
      expect(signedUp.status).toBe(202);
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('POST', '/auth/sign-in', {
          body: { email, password: PASSWORD },
          headers: { 'user-agent': CHROME_MAC },
        });
        expect(res.status).toBe(200);
      });
      expect(events.map((event) => event.action)).toEqual(['sign_in.succeeded']);
      const queued = await ctx.deps.stores.mail.recent(10);
      expect(queued.map((row) => row.template)).toEqual(['email-verification']);
    });
  });

  under.describe('notifications: at most NOTIFICATIONS_PER_ADDRESS_PER_HOUR to an address', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { ...smtp.env(), MAIL_NOTIFICATIONS: EVERY_NOTIFICATION, SIGN_UP: 'verify' },
      });
    });
    const templatesTo = async (email: string) =>
      (await ctx.deps.stores.mail.recent(100))
        .filter((row) => row.recipient === email)
        .map((row) => row.template);

    test('past the cap a notification is dropped with notification.dropped; verification and reset links still go; the next hour sends again', async () => {
      const email = 'flooded@example.com';
      const body = { email, password: PASSWORD };
      expect((await ctx.request('POST', '/auth/sign-up', { body })).status).toBe(202);
      const user = (await ctx.findUser(email))!;
      const staff = await ctx.signIn((await ctx.createAccount(undefined, 'employee')).email);
      const setPassword = async () => {
        const res = await ctx.request('POST', `/admin/users/${user.id}/password`, {
          token: staff.token,
          body: { password: PASSWORD },
        });
        expect(res.status).toBe(204);
      };
      const events = await ctx.eventsWrittenBy(async () => {
        for (let i = 0; i < NOTIFICATIONS_PER_ADDRESS_PER_HOUR + 2; i++) await setPassword();
      });
      const told = events.filter((event) => event.action.startsWith('notification.'));
      expect(told.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ...Array.from({ length: NOTIFICATIONS_PER_ADDRESS_PER_HOUR }, () => [
          'notification.queued',
          user.id,
          { kind: 'password-changed' },
        ]),
        ['notification.dropped', user.id, { kind: 'password-changed' }],
        ['notification.dropped', user.id, { kind: 'password-changed' }],
      ]);

      // The links an address asks for are not notifications: never starved by the cap.
      const session = await ctx.signIn(email);
      const resent = await ctx.request('POST', '/auth/email/verification', {
        token: session.token,
      });
      expect(resent.status).toBe(202);
      const reset = await ctx.request('POST', '/auth/password-reset', { body: { email } });
      expect(reset.status).toBe(202);
      await ctx.deps.deferred.drain();
      const templates = await templatesTo(email);
      expect(templates.filter((name) => name === 'password-changed')).toHaveLength(
        NOTIFICATIONS_PER_ADDRESS_PER_HOUR,
      );
      expect(templates.filter((name) => name !== 'password-changed').sort()).toEqual([
        'email-verification',
        'email-verification',
        'password-reset',
      ]);

      // A new clock hour counts from zero.
      ctx.clock.advance(60 * 60_000);
      await setPassword();
      expect((await templatesTo(email)).filter((name) => name === 'password-changed')).toHaveLength(
        NOTIFICATIONS_PER_ADDRESS_PER_HOUR + 1,
      );
    });

    test('a change refused uses none of the cap', async () => {
      const staff = await ctx.signIn((await ctx.createAccount(undefined, 'employee')).email);
      const user = await ctx.createAccount();
      // Refused (422) before any write: nothing counted.
      for (let i = 0; i < NOTIFICATIONS_PER_ADDRESS_PER_HOUR; i++) {
        const res = await ctx.request('POST', `/admin/users/${user.id}/password`, {
          token: staff.token,
          body: { password: 'short' },
        });
        expect(res.status).toBe(422);
      }
      const res = await ctx.request('POST', `/admin/users/${user.id}/password`, {
        token: staff.token,
        body: { password: PASSWORD },
      });
      expect(res.status).toBe(204);
      expect(await templatesTo(user.email)).toEqual(['password-changed']);
    });
  });

  under.describe('notifications turned off by the operator', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { ...smtp.env(), MAIL_NOTIFICATIONS: 'passkey-added' } });
    });

    test('error: a password change and a new device queue nothing when their kinds are off', async () => {
      const user = await ctx.createAccount();
      const events = await ctx.eventsWrittenBy(async () => {
        const session = await ctx.signIn(user.email);
        const res = await ctx.browser(session, 'POST', '/auth/password', {
          body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        });
        expect(res.status).toBe(204);
      });
      expect(events.map((event) => event.action)).toEqual([
        'sign_in.succeeded',
        'password.changed',
      ]);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
      expect(await ctx.deps.stores.mail.recent(10)).toEqual([]);
    });
  });
}

for (const target of COMMAND_DATABASES) {
  target.describe('notifications of the operator commands', () => {
    const env = (fresh: FreshDatabase) => ({ ...fresh.env, LOG_LEVEL: 'silent' });
    /** Sends what the commands queued on `fresh` through the test SMTP server; the messages since `before`. */
    async function delivered(fresh: FreshDatabase, before: number) {
      const { stores } = await fresh.open();
      const logger = createLogger('silent');
      const config = parseConfig({ ...env(fresh), ...smtp.env() });
      const run = await mailDelivery.run({
        stores,
        mailer: mailTransportOf(config.mail, logger),
        clock: Date.now,
        logger,
      });
      return (await smtp.received(before + (run.sent as number))).slice(before);
    }

    test('happy: user:password and user:disable tell the account holder, in English', async () => {
      const fresh = await target.fresh();
      const email = 'someone@example.com';
      for (const [script, args] of [
        ['user-create.ts', ['--email', 'staff@example.com', '--role', 'employee']],
        ['user-create.ts', ['--email', email]],
        ['user-password.ts', ['--email', email]],
        ['user-disable.ts', ['--email', email]],
      ] as const) {
        const run = await runScript(script, args, env(fresh), `${NEW_PASSWORD}\n`);
        expect([script, run.code, run.stderr]).toEqual([script, 0, '']);
      }
      const messages = await delivered(fresh, smtp.messages.length);
      expect(messages).toHaveLength(2);
      const origin = parseConfig(env(fresh)).publicOrigins[0];
      for (const [message, subject] of [
        [messages[0], 'Your Listings Service password was changed'],
        [messages[1], 'Your Listings Service account was disabled'],
      ] as const) {
        expect([message && recipientOf(message), message?.subject]).toEqual([email, subject]);
        expect(message?.text).toContain(`${origin}${SECURITY_LOG_PATH}`);
      }
    });
  });
}
