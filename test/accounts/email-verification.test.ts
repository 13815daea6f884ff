import { afterAll, beforeAll, expect, test } from 'bun:test';
import { EMAIL_LINK_TTL_MS } from '@/accounts/email-links';
import { UNVERIFIED_DETAIL } from '@/accounts/messages';
import { problemOf } from '../support/harness';
import { deliveredSince, recipientOf, startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { PASSWORD } from './support';

const UNVERIFIED = problemOf(403, UNVERIFIED_DETAIL);
const INVALID = problemOf(400, expect.any(String));
const RESENT = {
  message: 'A new link to verify your address is on its way; it works once, for 24 hours.',
};
const tokenOf = (text: string | undefined) =>
  /\/account#verify=([\w-]+)/.exec(text ?? '')?.[1] ?? '';

// Started before the suites are collected: their apps are built with its settings.
const smtp: TestSmtpServer = await startSmtpServer();
afterAll(() => smtp.stop());

const smtpEnv = (): Record<string, string> => ({
  ...smtp.env(),
  TRUST_PROXY: 'true',
  RP_NAME: 'Listings Service',
});

for (const under of storesUnderTest()) {
  under.describe('email verification: SIGN_UP=verify', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { ...smtpEnv(), SIGN_UP: 'verify' } });
    });
    const delivered = (before: number) => deliveredSince(smtp, ctx.deps, before);
    const confirm = (body: unknown) => ctx.request('POST', '/auth/email/confirm', { body });
    const createProperty = (token: string) =>
      ctx.request('POST', '/listings/properties', { token, body: {} });

    test('happy: sign-up mails a link; until it is followed the account signs in and uses /auth only; then the API', async () => {
      const before = smtp.messages.length;
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('POST', '/auth/sign-up', {
          body: { email: 'New.Person@example.com', password: PASSWORD },
        });
        expect(res.status).toBe(202);
        expect((res.body as { message: string }).message).toContain('a link to verify');
      });
      const user = (await ctx.findUser('new.person@example.com'))!;
      expect(user.emailUnverified).toBe(true);
      expect(events.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['sign_up', user.id, { role: 'customer' }],
        ['email_verification.sent', user.id, { email: 'new.person@example.com' }],
      ]);
      const [message] = await delivered(before);
      expect(message?.subject).toBe('Verify your email address for Listings Service');
      expect(recipientOf(message)).toBe('new.person@example.com');
      const token = tokenOf(message?.text);
      expect(token.length).toBe(43);
      expect(message?.html).toContain(`<a href="http://localhost:3000/account#verify=${token}">`);
      expect(message?.text).toContain('within 24 hours');

      const session = await ctx.signIn('new.person@example.com');
      expect(session.user).toEqual({
        id: user.id,
        email: 'new.person@example.com',
        role: 'customer',
        emailVerified: false,
      });
      // Its own account routes answer, on the cookie and the token alike.
      const me = await ctx.request('GET', '/auth/me', { headers: { cookie: session.cookie } });
      expect([me.status, me.body]).toEqual([200, session.user]);
      expect((await ctx.request('GET', '/auth/sessions', { token: session.token })).status).toBe(
        200,
      );
      // Everything else: 403 account.unverified, before the body is read; nothing written.
      const refused = await ctx.eventsWrittenBy(async () => {
        for (const res of [
          await ctx.request('GET', '/auth/me/usage', { token: session.token }),
          await ctx.request('GET', '/auth/me/usage', { headers: { cookie: session.cookie } }),
          await createProperty(session.token),
          await ctx.request('GET', '/listings/properties', { token: session.token }),
        ]) {
          expect([res.status, res.body]).toEqual([403, UNVERIFIED]);
        }
      });
      expect(refused).toEqual([]);

      const verified = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token });
        expect([res.status, res.body]).toEqual([
          200,
          { email: 'new.person@example.com', purpose: 'verify' },
        ]);
      });
      expect(verified.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['email.verified', user.id, { email: 'new.person@example.com' }],
      ]);
      // The session goes on, now verified; the token that said otherwise ends.
      const usage = await ctx.request('GET', '/auth/me/usage', {
        headers: { cookie: session.cookie },
      });
      expect(usage.status).toBe(200);
      expect((await ctx.request('GET', '/auth/me/usage', { token: session.token })).status).toBe(
        401,
      );
      ctx.clock.advance(1_000);
      const again = await ctx.signIn('new.person@example.com');
      expect(again.user.emailVerified).toBe(true);
      expect((await ctx.request('GET', '/auth/me/usage', { token: again.token })).status).toBe(200);

      // Used twice: refused, nothing written.
      const twice = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token });
        expect([res.status, res.body]).toEqual([400, INVALID]);
      });
      expect(twice).toEqual([]);
    });

    test('happy: resend mails a new link (the older one stops working); Accept-Language es', async () => {
      const user = await ctx.signUp();
      const session = await ctx.signIn(user.email);
      const before = smtp.messages.length;
      const res = await ctx.request('POST', '/auth/email/verification', {
        token: session.token,
        headers: { 'accept-language': 'es-ES,es;q=0.9' },
      });
      expect([res.status, res.body]).toEqual([202, RESENT]);
      const [first, second] = await delivered(before);
      expect(second?.subject).toBe('Verifica tu dirección de correo en Listings Service');
      expect(recipientOf(second)).toBe(user.email);
      const old = await confirm({ token: tokenOf(first?.text) });
      expect([old.status, old.body]).toEqual([400, INVALID]);
      expect((await confirm({ token: tokenOf(second?.text) })).status).toBe(200);
      const done = await ctx.request('POST', '/auth/email/verification', {
        headers: { cookie: session.cookie, origin: 'http://localhost:3000' },
      });
      expect([done.status, done.body]).toEqual([
        409,
        problemOf(409, "This account's email address is verified already."),
      ]);
    });

    test('error: an expired link is refused and the account stays unverified', async () => {
      const before = smtp.messages.length;
      const user = await ctx.signUp();
      const [message] = await delivered(before);
      ctx.clock.advance(EMAIL_LINK_TTL_MS);
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await confirm({ token: tokenOf(message?.text) });
        expect([res.status, res.body]).toEqual([400, INVALID]);
      });
      expect(events).toEqual([]);
      expect((await ctx.findUser(user.email))?.emailUnverified).toBe(true);
    });

    test('happy: following a password reset link verifies the address it was mailed to', async () => {
      const before = smtp.messages.length;
      const user = await ctx.signUp();
      const [verification] = await delivered(before);
      const asked = await ctx.request('POST', '/auth/password-reset', {
        body: { email: user.email },
      });
      expect(asked.status).toBe(202);
      await ctx.deps.deferred.drain();
      const [reset] = await delivered(before + 1);
      const token = /\/account#reset=([\w-]+)/.exec(reset?.text ?? '')?.[1];
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('POST', '/auth/password-reset/confirm', {
          body: { token, password: 'a brand new passphrase' },
        });
        expect(res.status).toBe(204);
      });
      expect(events.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['password.reset', user.id, { sessionsEnded: 0 }],
        ['email.verified', user.id, { email: user.email }],
      ]);
      expect((await ctx.findUser(user.email))?.emailUnverified).toBe(false);
      const session = await ctx.signIn(user.email, 'a brand new passphrase');
      expect(session.user.emailVerified).toBe(true);
      expect((await createProperty(session.token)).status).not.toBe(403);
      // The verification link has nothing left to do: it is gone.
      const res = await confirm({ token: tokenOf(verification?.text) });
      expect([res.status, res.body]).toEqual([400, INVALID]);
    });

    test('error: a made-up token and bad bodies are refused, nothing written', async () => {
      const events = await ctx.eventsWrittenBy(async () => {
        const made = await confirm({ token: 'x'.repeat(43) });
        expect([made.status, made.body]).toEqual([400, INVALID]);
        const empty = await confirm({});
        expect([empty.status, empty.body]).toEqual([
          422,
          problemOf(422, undefined, { token: { isEmpty: "Value is required and can't be empty" } }),
        ]);
        const extra = await confirm({ token: 'abc', extra: 1 });
        expect([extra.status, extra.body]).toEqual([
          422,
          problemOf(422, undefined, { extra: { notAllowed: 'The field is not allowed' } }),
        ]);
        const anonymous = await ctx.request('POST', '/auth/email/verification');
        expect([anonymous.status, anonymous.body]).toEqual([401, problemOf(401)]);
      });
      expect(events).toEqual([]);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    });

    test('the OpenAPI document lists the 403 on the routes an unverified account is refused, not on its own', async () => {
      type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      const { paths } = (await ctx.request<Doc>('GET', '/docs/json')).body;
      const statuses = (path: string, method: string) =>
        Object.keys(paths[path]?.[method]?.responses ?? {});
      expect(statuses('/auth/me/usage', 'get')).toContain('403');
      expect(statuses('/listings/properties', 'get')).toContain('403');
      expect(statuses('/auth/me', 'get')).not.toContain('403');
      expect(statuses('/auth/sessions', 'get')).not.toContain('403');
    });

    test('existing and operator-made accounts are verified', async () => {
      const made = await ctx.createAccount();
      const session = await ctx.signIn(made.email);
      expect(session.user.emailVerified).toBe(true);
      expect((await ctx.request('GET', '/auth/me/usage', { token: session.token })).status).toBe(
        200,
      );
      const res = await ctx.request('POST', '/auth/email/verification', { token: session.token });
      expect(res.status).toBe(409);
    });
  });

  under.describe('email verification: set by an employee', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({ env: { ...smtpEnv(), SIGN_UP: 'verify' } });
    });

    test('happy: PATCH /admin/users/{id} {emailVerified: true} verifies, as the link would; the list shows it', async () => {
      const staff = await ctx.signIn((await ctx.createAccount(undefined, 'employee')).email);
      const user = await ctx.signUp();
      const before = await ctx.signIn(user.email);
      const path = `/admin/users/${user.id}`;
      const shown = await ctx.request('GET', path, { token: staff.token });
      expect(shown.body).toMatchObject({ email: user.email, emailVerified: false });

      ctx.clock.advance(1_000);
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('PATCH', path, {
          token: staff.token,
          body: { emailVerified: true },
        });
        expect([res.status, res.body]).toEqual([
          200,
          expect.objectContaining({ id: user.id, emailVerified: true, disabled: false }),
        ]);
      });
      expect(events.map((event) => [event.action, event.actorId, event.details])).toEqual([
        ['email.verified', staff.user.id, { email: user.email }],
      ]);
      const list = await ctx.request<{ users: { id: string; emailVerified: boolean }[] }>(
        'GET',
        `/admin/users?email=${encodeURIComponent(user.email)}`,
        { token: staff.token },
      );
      expect(list.body.users.map((row) => [row.id, row.emailVerified])).toEqual([[user.id, true]]);
      // Its tokens said unverified: refused; a new sign-in reaches the API.
      expect((await ctx.request('GET', '/auth/me', { token: before.token })).status).toBe(401);
      const after = await ctx.signIn(user.email);
      expect(after.user.emailVerified).toBe(true);
      expect((await ctx.request('GET', '/auth/me/usage', { token: after.token })).status).toBe(200);
      // Verified already: 200, nothing written.
      const again = await ctx.eventsWrittenBy(async () => {
        const res = await ctx.request('PATCH', path, {
          token: staff.token,
          body: { emailVerified: true },
        });
        expect(res.status).toBe(200);
      });
      expect(again).toEqual([]);
    });
  });

  under.describe('email verification: resends are bounded per account', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { ...smtpEnv(), SIGN_UP: 'verify', EMAIL_LINKS_PER_ACCOUNT_PER_HOUR: '2' },
      });
    });
    test('past EMAIL_LINKS_PER_ACCOUNT_PER_HOUR: 429 with Retry-After, nothing queued; lifted after the hour', async () => {
      const user = await ctx.signUp();
      const session = await ctx.signIn(user.email);
      const resend = () =>
        ctx.request('POST', '/auth/email/verification', { token: session.token });
      expect((await resend()).status).toBe(202);
      expect((await resend()).status).toBe(202);
      const pending = (await ctx.deps.stores.mail.counts()).pending;
      const events = await ctx.eventsWrittenBy(async () => {
        const refused = await resend();
        expect([refused.status, refused.body]).toEqual([429, problemOf(429)]);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      });
      expect(events).toEqual([]);
      expect((await ctx.deps.stores.mail.counts()).pending).toBe(pending);
      ctx.clock.advance(3_600_000);
      expect((await resend()).status).toBe(202);
    });
  });
}
