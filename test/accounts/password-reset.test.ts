import { afterAll, beforeAll, expect, test } from 'bun:test';
import { PASSWORD_RESET_TTL_MS } from '@/accounts/password-reset';
import * as mailDelivery from '@/workers/mail-delivery';
import { problemOf } from '../support/harness';
import { deliveredSince, recipientOf, startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { PASSWORD } from './support';

const NEW_PASSWORD = 'a brand new passphrase';
const ACCEPTED = {
  message:
    'If the address has an account, a link to choose a new password is on its way; it works once, for 30 minutes.',
};
const INVALID = problemOf(400, expect.any(String));

// Started before the suites are collected: their apps are built with its settings.
const smtp: TestSmtpServer = await startSmtpServer();
afterAll(() => smtp.stop());

for (const under of storesUnderTest()) {
  under.describe('password reset: POST /auth/password-reset and /confirm', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: {
          ...smtpEnv(),
          PASSWORD_RESETS_PER_IP_PER_HOUR: '1000',
          PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR: '1000',
        },
      });
    });
    /** A reset request, and the work it defers after its answer. */
    const ask = async (email: string, headers: Record<string, string> = {}) => {
      const res = await ctx.request('POST', '/auth/password-reset', { body: { email }, headers });
      await ctx.deps.deferred.drain();
      return res;
    };
    const confirm = (body: unknown) =>
      ctx.request('POST', '/auth/password-reset/confirm', { body });
    const signInStatus = async (email: string, password: string) =>
      (await ctx.request('POST', '/auth/sign-in', { body: { email, password } })).status;
    /** Sends what is queued; the messages that reached the server since `before`. */
    const delivered = (before: number) => deliveredSince(smtp, ctx.deps, before);
    const tokenOf = (text: string) => /\/account#reset=([\w-]+)/.exec(text)?.[1] ?? '';

    test('happy: the mailed link sets a new password once; every session and token of the account is revoked', async () => {
      const user = await ctx.createAccount();
      const phone = await ctx.signIn(user.email);
      ctx.clock.advance(5_000);
      const before = smtp.messages.length;
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ask(user.email.toUpperCase());
        expect([res.status, res.body]).toEqual([202, ACCEPTED]);
      });
      expect(events.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['password_reset.requested', user.id, { mailed: true }],
      ]);
      const [message] = await delivered(before);
      expect(message?.subject).toBe('Reset your Listings Service password');
      expect(recipientOf(message)).toBe(user.email);
      const token = tokenOf(message?.text ?? '');
      expect(message?.text).toContain(`http://localhost:3000/account#reset=${token}`);
      expect(message?.html).toContain(`<a href="http://localhost:3000/account#reset=${token}">`);
      expect(token.length).toBe(43);

      const used = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token, password: NEW_PASSWORD });
        expect([res.status, res.text]).toEqual([204, '']);
      });
      expect(used.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['password.reset', user.id, { sessionsEnded: 1 }],
      ]);
      expect((await ctx.request('GET', '/auth/me', { token: phone.token })).status).toBe(401);
      expect(
        (await ctx.request('GET', '/auth/me', { headers: { cookie: phone.cookie } })).status,
      ).toBe(401);
      expect(await signInStatus(user.email, PASSWORD)).toBe(401);
      expect(await signInStatus(user.email, NEW_PASSWORD)).toBe(200);

      // Used twice: refused, and the password stays the one it set.
      const again = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token, password: 'yet another passphrase' });
        expect([res.status, res.body]).toEqual([400, INVALID]);
      });
      expect(again).toEqual([]);
      expect(await signInStatus(user.email, NEW_PASSWORD)).toBe(200);
    });

    test('happy: the answer comes before the work, the same with an account or without; the message is queued after it', async () => {
      const user = await ctx.createAccount();
      const answers: unknown[] = [];
      const queued: number[] = [];
      for (const email of [user.email, 'nobody@example.com']) {
        const before = (await ctx.deps.stores.mail.counts()).pending;
        const res = await ctx.request('POST', '/auth/password-reset', { body: { email } });
        // Answered with the lookup, the link and the message still to come.
        expect(ctx.deps.deferred.pending).toBe(1);
        const headers = [...res.headers.keys()].filter((name) => name !== 'x-request-id');
        answers.push([res.status, res.body, headers]);
        await ctx.deps.deferred.drain();
        queued.push((await ctx.deps.stores.mail.counts()).pending - before);
      }
      expect(answers[0]).toEqual([202, ACCEPTED, expect.arrayContaining(['content-type'])]);
      expect(answers[1]).toEqual(answers[0]);
      expect(queued).toEqual([1, 0]);
      // Sent now, so the next tests count only their own.
      expect(await delivered(smtp.messages.length)).toHaveLength(1);
    });

    test('happy: Accept-Language es gets the message in Spanish', async () => {
      const user = await ctx.createAccount();
      const before = smtp.messages.length;
      expect((await ask(user.email, { 'accept-language': 'es-MX,es;q=0.9,en;q=0.5' })).status).toBe(
        202,
      );
      const [message] = await delivered(before);
      expect(message?.subject).toBe('Restablece tu contraseña de Listings Service');
      expect(message?.text).toContain('abre este enlace en los próximos 30 minutos');
    });

    test('happy: only the newest link works', async () => {
      const user = await ctx.createAccount();
      const before = smtp.messages.length;
      await ask(user.email);
      await ask(user.email);
      const [first, second] = await delivered(before);
      const res = await confirm({ token: tokenOf(first?.text ?? ''), password: NEW_PASSWORD });
      expect([res.status, res.body]).toEqual([400, INVALID]);
      expect(
        (await confirm({ token: tokenOf(second?.text ?? ''), password: NEW_PASSWORD })).status,
      ).toBe(204);
    });

    test('error: an expired link is refused and changes nothing', async () => {
      const user = await ctx.createAccount();
      const before = smtp.messages.length;
      await ask(user.email);
      const [message] = await delivered(before);
      ctx.clock.advance(PASSWORD_RESET_TTL_MS);
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token: tokenOf(message?.text ?? ''), password: NEW_PASSWORD });
        expect([res.status, res.body]).toEqual([400, INVALID]);
      });
      expect(events).toEqual([]);
      expect(await signInStatus(user.email, PASSWORD)).toBe(200);
    });

    test('error: an unknown address gets the same answer, the same event and no message', async () => {
      const before = smtp.messages.length;
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ask('nobody@example.com');
        expect([res.status, res.body]).toEqual([202, ACCEPTED]);
      });
      expect(events.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['password_reset.requested', null, { mailed: false }],
      ]);
      expect(await mailDelivery.run(ctx.deps)).toMatchObject({ sent: 0 });
      expect(smtp.messages.length).toBe(before);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    });

    test('error: a made-up token is refused, nothing written', async () => {
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token: 'x'.repeat(43), password: NEW_PASSWORD });
        expect([res.status, res.body]).toEqual([400, INVALID]);
      });
      expect(events).toEqual([]);
    });

    test('error: bad bodies → 422 with the field messages, nothing written', async () => {
      const events = await ctx.eventsWrittenBy(async () => {
        const bad = await ask('not-an-email');
        expect([bad.status, bad.body]).toEqual([
          422,
          problemOf(422, undefined, {
            email: { emailInvalidFormat: 'The input is not a valid email' },
          }),
        ]);
        const short = await confirm({ token: 'abc', password: 'seven c', extra: 1 });
        expect([short.status, short.body]).toEqual([
          422,
          problemOf(422, undefined, {
            password: { stringLengthTooShort: 'The input is less than 8 characters long' },
            extra: { notAllowed: 'The field is not allowed' },
          }),
        ]);
        const empty = await confirm({});
        expect([empty.status, empty.body]).toEqual([
          422,
          problemOf(422, undefined, {
            token: { isEmpty: "Value is required and can't be empty" },
            password: { isEmpty: "Value is required and can't be empty" },
          }),
        ]);
      });
      expect(events).toEqual([]);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    });
  });

  under.describe('password reset: the limits', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: {
          ...smtpEnv(),
          PASSWORD_RESETS_PER_IP_PER_HOUR: '3',
          PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR: '2',
        },
      });
    });
    const ask = (email: string, address: string) =>
      ctx.request('POST', '/auth/password-reset', {
        body: { email },
        headers: { 'x-forwarded-for': address },
      });

    test('per email, whether or not it has an account, then per address; 429 with Retry-After, lifted after the hour', async () => {
      const user = await ctx.createAccount();
      for (const email of [user.email, 'nobody@example.com']) {
        expect((await ask(email, '198.51.100.1')).status).toBe(202);
        expect((await ask(email, '198.51.100.2')).status).toBe(202);
        const refused = await ask(email, '198.51.100.3');
        expect([refused.status, refused.body]).toEqual([429, problemOf(429)]);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const other = await ask('third@example.com', '198.51.100.1');
      expect(other.status).toBe(202);
      expect((await ask('fourth@example.com', '198.51.100.1')).status).toBe(429);
      ctx.clock.advance(3_600_000);
      expect((await ask(user.email, '198.51.100.1')).status).toBe(202);
    });
  });
}

function smtpEnv(): Record<string, string> {
  return {
    ...smtp.env(),
    TRUST_PROXY: 'true',
    RP_NAME: 'Listings Service',
  };
}
