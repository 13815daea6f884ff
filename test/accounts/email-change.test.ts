import { afterAll, beforeAll, expect, test } from 'bun:test';
import { problemOf } from '../support/harness';
import { deliveredSince, recipientOf, startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { type AccountsTestApp, storesUnderTest } from './stores';
import { PASSWORD } from './support';

const SENT = {
  message:
    'A link to confirm the new address is on its way to it; it works once, for 24 hours. Your address stays as it is until then.',
};
const INVALID = problemOf(400, expect.any(String));
const tokenOf = (text: string | undefined) =>
  /\/account#email-change=([\w-]+)/.exec(text ?? '')?.[1] ?? '';

// Started before the suites are collected: their apps are built with its settings.
const smtp: TestSmtpServer = await startSmtpServer();
afterAll(() => smtp.stop());

for (const under of storesUnderTest()) {
  under.describe('change of email: POST /auth/email/change and /confirm', () => {
    let ctx: AccountsTestApp;
    beforeAll(async () => {
      ctx = await under.app({
        env: { ...smtp.env(), RP_NAME: 'Listings Service', EMAIL_LINKS_PER_ACCOUNT_PER_HOUR: '2' },
      });
    });
    const delivered = (before: number) => deliveredSince(smtp, ctx.deps, before);
    const change = (token: string, body: unknown) =>
      ctx.request('POST', '/auth/email/change', { token, body });
    const confirm = (token: string) =>
      ctx.request('POST', '/auth/email/confirm', { body: { token } });

    test('happy: confirmed from the new address, then the old one is told; sign-in moves with it', async () => {
      const user = await ctx.createAccount();
      const session = await ctx.signIn(user.email);
      const before = smtp.messages.length;
      const asked = await ctx.eventsWrittenBy(async () => {
        const res = await change(session.token, {
          email: ' Moved@Example.com',
          currentPassword: PASSWORD,
        });
        expect([res.status, res.body]).toEqual([202, SENT]);
      });
      expect(asked.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['email_change.requested', user.id, { to: 'moved@example.com' }],
      ]);
      const [link] = await delivered(before);
      expect(recipientOf(link)).toBe('moved@example.com');
      expect(link?.subject).toBe('Confirm your new email address for Listings Service');
      const token = tokenOf(link?.text);
      expect(token.length).toBe(43);
      // Nothing changes until the link is followed.
      expect((await ctx.findUser(user.email))?.id).toBe(user.id);

      const followed = await ctx.eventsWrittenBy(async () => {
        const res = await confirm(token);
        expect([res.status, res.body]).toEqual([
          200,
          { email: 'moved@example.com', purpose: 'change' },
        ]);
      });
      expect(followed.map((event) => [event.action, event.subjectId, event.details])).toEqual([
        ['email.changed', user.id, { from: user.email, to: 'moved@example.com' }],
      ]);
      const [notice] = await delivered(before + 1);
      expect(recipientOf(notice)).toBe(user.email);
      expect(notice?.subject).toBe(
        'The email address of your Listings Service account was changed',
      );
      expect(notice?.text).toContain('is now moved@example.com');
      expect(notice?.html).toContain('<a href="http://localhost:3000/account#security-log">');

      // The session and token go on; sign-in is by the new address only.
      const me = await ctx.request('GET', '/auth/me', { token: session.token });
      expect(me.body).toEqual({ ...user, email: 'moved@example.com' });
      expect(
        (
          await ctx.request('POST', '/auth/sign-in', {
            body: { email: user.email, password: PASSWORD },
          })
        ).status,
      ).toBe(401);
      expect((await ctx.signIn('moved@example.com')).user.id).toBe(user.id);
      // Used twice: refused, nothing written.
      const twice = await ctx.eventsWrittenBy(async () => {
        const res = await confirm(token);
        expect([res.status, res.body]).toEqual([400, INVALID]);
      });
      expect(twice).toEqual([]);
    });

    test('error: an address another account took meanwhile → 409, nothing changes', async () => {
      const user = await ctx.createAccount();
      const session = await ctx.signIn(user.email);
      const before = smtp.messages.length;
      expect(
        (await change(session.token, { email: 'taken@example.com', currentPassword: PASSWORD }))
          .status,
      ).toBe(202);
      const [link] = await delivered(before);
      await ctx.createAccount('taken@example.com');
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await confirm(tokenOf(link?.text));
        expect([res.status, res.body]).toEqual([409, problemOf(409)]);
      });
      expect(events).toEqual([]);
      expect((await ctx.findUser(user.email))?.id).toBe(user.id);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    });

    test('error: two accounts confirming the same new address at once → one 200, one 409, one owner', async () => {
      const links: string[] = [];
      const users = [await ctx.createAccount(), await ctx.createAccount()];
      for (const user of users) {
        const session = await ctx.signIn(user.email);
        const before = smtp.messages.length;
        const res = await change(session.token, {
          email: 'both@example.com',
          currentPassword: PASSWORD,
        });
        expect(res.status).toBe(202);
        links.push(tokenOf((await delivered(before))[0]?.text));
      }
      const answers = await Promise.all(links.map((token) => confirm(token)));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
      expect(answers.find((res) => res.status === 409)?.body).toEqual(problemOf(409));
      const owner = await ctx.findUser('both@example.com');
      expect(users.map((user) => user.id)).toContain(owner?.id ?? 'none');
      // The winner's old address is told, once.
      const notices = await delivered(smtp.messages.length);
      const winner = users.find((user) => user.id === owner?.id);
      expect(notices.map((message) => recipientOf(message))).toEqual([winner?.email ?? 'none']);
    });

    test('error: a wrong password → 401 counted as a failed sign-in, nothing mailed', async () => {
      const user = await ctx.createAccount();
      const session = await ctx.signIn(user.email);
      const events = await ctx.eventsWrittenBy(async () => {
        const res = await change(session.token, {
          email: 'elsewhere@example.com',
          currentPassword: 'not the password',
        });
        expect([res.status, res.body]).toEqual([401, problemOf(401)]);
      });
      expect(events.map((event) => [event.action, event.details])).toEqual([
        ['sign_in.failed', { method: 'password', purpose: 'email_change' }],
      ]);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    });

    test('error: bad bodies and the same address → 422; anonymous → 401; nothing written', async () => {
      const user = await ctx.createAccount();
      const session = await ctx.signIn(user.email);
      const events = await ctx.eventsWrittenBy(async () => {
        const same = await change(session.token, {
          email: user.email.toUpperCase(),
          currentPassword: PASSWORD,
        });
        expect([same.status, same.body]).toEqual([
          422,
          problemOf(422, undefined, {
            email: { different: 'The new address must differ from the current one.' },
          }),
        ]);
        const bad = await change(session.token, { email: 'nope', currentPassword: '' });
        expect([bad.status, bad.body]).toEqual([
          422,
          problemOf(422, undefined, {
            email: { emailInvalidFormat: 'The input is not a valid email' },
            currentPassword: { isEmpty: "Value is required and can't be empty" },
          }),
        ]);
        const anonymous = await ctx.request('POST', '/auth/email/change', {
          body: { email: 'a@example.com', currentPassword: PASSWORD },
        });
        expect([anonymous.status, anonymous.body]).toEqual([401, problemOf(401)]);
      });
      expect(events).toEqual([]);
      expect(await ctx.deps.stores.mail.counts()).toEqual({ pending: 0, failed: 0 });
    });

    test('limit: past EMAIL_LINKS_PER_ACCOUNT_PER_HOUR → 429 with Retry-After before the password is checked', async () => {
      const user = await ctx.createAccount();
      const session = await ctx.signIn(user.email);
      const body = { email: 'next@example.com', currentPassword: PASSWORD };
      expect((await change(session.token, body)).status).toBe(202);
      expect((await change(session.token, body)).status).toBe(202);
      const events = await ctx.eventsWrittenBy(async () => {
        const refused = await change(session.token, body);
        expect([refused.status, refused.body]).toEqual([429, problemOf(429)]);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      });
      expect(events).toEqual([]);
    });
  });
}
