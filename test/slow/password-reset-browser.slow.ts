/**
 * "Forgot your password?" end to end in Debian's headless Chromium: the
 * account page asks for a link, the real server queues it and its
 * mail-delivery job sends it to a real SMTP server (STARTTLS, AUTH) started
 * here; the link read from the delivered message opens the page, which sets
 * the new password; the old one stops working, the new one signs in, and
 * the same link a second time is refused in words. Then, under
 * SIGN_UP=verify, a sign-up on the page shows the "check your mail" notice,
 * its button sends a new link, and the link from the delivered message
 * verifies the account, and a change of address from the page's form is
 * confirmed from the new address, the old one told. Leaves test/artifacts/account-password-reset*.png
 * and account-email-verification*.png.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { recipientOf, startSmtpServer } from '../support/smtp';
import { accountBrowserSuite, chromiumPresent } from './browser-page';

const artifacts = join(import.meta.dir, '..', 'artifacts');
const present = chromiumPresent('password reset browser test');
const EMAIL = 'forgetful@example.com';
const OLD_PASSWORD = 'the old passphrase';
const NEW_PASSWORD = 'a fresh passphrase';

const smtp = await startSmtpServer();
afterAll(() => smtp.stop());

describe.skipIf(!present)('password reset in headless Chromium', () => {
  const suite = accountBrowserSuite({
    name: 'password-reset-browser',
    viewport: { width: 900, height: 1000 },
    // The mail-delivery job every second, so the message arrives without waiting 10 s; the
    // notifications of the sign-ins and the new password are test/accounts/notifications.test.ts's.
    env: () => ({
      ...smtp.env(),
      WORKERS: 'on',
      JOB_MAIL_DELIVERY_CRON: '* * * * * *',
      MAIL_NOTIFICATIONS: 'none',
    }),
  });
  const { origin } = suite;
  const signInStatus = async (password: string) =>
    (
      await fetch(`${origin}/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: EMAIL, password }),
      })
    ).status;

  test('ask for a link, follow it from the delivered message, set a new password; the link works once', async () => {
    const { page, problems } = suite;
    const signUp = await fetch(`${origin}/auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: OLD_PASSWORD }),
    });
    expect(signUp.status).toBe(202);

    await page.goto(`${origin}/account`);
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    const forgot = page.getByRole('button', { name: 'Forgot your password?' });
    expect(await forgot.getAttribute('aria-expanded')).toBe('false');
    await forgot.click();
    expect(await forgot.getAttribute('aria-expanded')).toBe('true');
    await page.locator('#reset-request-form').getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    const message = page.locator('#message');
    await page.waitForFunction(() =>
      document.querySelector('#message')?.textContent?.startsWith('If the address has an account'),
    );
    expect(await message.textContent()).toBe(
      'If the address has an account, a link to choose a new password is on its way; it works once, for 30 minutes.',
    );
    expect(await page.locator('#reset-request-form').isHidden()).toBe(true);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'account-password-reset-asked.png') });

    const [mail] = await smtp.received(1);
    expect(smtp.secured).toEqual([true]);
    expect(mail?.subject).toBe('Reset your Listings Service password');
    const link = /(http:\/\/localhost:\d+\/account#reset=[\w-]+)/.exec(mail?.text ?? '')?.[1];
    expect(link?.startsWith(`${origin}/account#reset=`)).toBe(true);

    await page.goto(link!);
    await page.locator('#reset-password').waitFor({ state: 'visible' });
    expect(await page.locator('#signed-out').isHidden()).toBe(true);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.screenshot({ path: join(artifacts, 'account-password-reset-form.png') });
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    expect(await message.textContent()).toBe(
      'Your password has been changed and every browser signed out. Sign in with it now.',
    );
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.locator('#reset-password').isHidden()).toBe(true);
    expect(await signInStatus(OLD_PASSWORD)).toBe(401);

    // The page's own sign-in takes the new password.
    await page.locator('#sign-in-email').fill(EMAIL);
    await page.locator('#sign-in-password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('#signed-in').waitFor({ state: 'visible' });
    expect(await page.locator('#user-email').textContent()).toBe(EMAIL);

    // The same link again: refused in words, the password unchanged.
    await page.goto(link!);
    await page.locator('#reset-password').waitFor({ state: 'visible' });
    await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.waitForFunction(() =>
      document.querySelector('#message')?.classList.contains('error'),
    );
    expect(await message.textContent()).toBe(
      'This reset link is invalid, already used or expired. Ask for a new one below.',
    );
    expect(await signInStatus(NEW_PASSWORD)).toBe(200);
    expect(smtp.messages.length).toBe(1);
    // The failed requests the page logs: /auth/me while signed out (401), the refused link (400).
    expect(problems.filter((problem) => !/\b40[01]\b/.test(problem))).toEqual([]);
  });
});

const verifySmtp = await startSmtpServer();
afterAll(() => verifySmtp.stop());

describe.skipIf(!present)('email verification in headless Chromium', () => {
  const suite = accountBrowserSuite({
    name: 'email-verification-browser',
    viewport: { width: 900, height: 1000 },
    env: () => ({
      ...verifySmtp.env(),
      SIGN_UP: 'verify',
      WORKERS: 'on',
      JOB_MAIL_DELIVERY_CRON: '* * * * * *',
    }),
  });
  const { origin } = suite;

  test('sign up on the page: the notice, a new link sent by its button, the link from the message verifies', async () => {
    const { page, problems } = suite;
    const email = 'careful@example.com';
    await page.goto(`${origin}/account`);
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    await page.locator('#sign-up-email').fill(email);
    await page.locator('#sign-up-password').fill(OLD_PASSWORD);
    await page.locator('#sign-up-form button[type="submit"]').click();
    await page.waitForFunction(() =>
      document.querySelector('#message')?.textContent?.startsWith('Your account is ready'),
    );
    const message = page.locator('#message');
    expect(await page.locator('#unverified').isVisible()).toBe(true);
    expect(await message.textContent()).toBe(
      `Your account is ready and you are signed in. Follow the link we sent to ${email} to start using it.`,
    );
    expect(await page.locator('#unverified-email').textContent()).toBe(email);
    expect(await page.locator('#usage').isHidden()).toBe(true);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'account-email-verification-notice.png') });

    await page.getByRole('button', { name: 'Send a new link' }).click();
    await page.waitForFunction(() =>
      document.querySelector('#message')?.textContent?.startsWith('A new link'),
    );
    const [first, second] = await verifySmtp.received(2);
    expect(first?.subject).toBe('Verify your email address for Listings Service');
    const linkOf = (text: string | undefined) =>
      /(http:\/\/localhost:\d+\/account#verify=[\w-]+)/.exec(text ?? '')?.[1];
    expect(linkOf(first?.text)).not.toBe(linkOf(second?.text));

    await page.goto(linkOf(second?.text)!);
    await page.waitForFunction(() =>
      document.querySelector('#message')?.textContent?.endsWith('is verified.'),
    );
    expect(await message.textContent()).toBe(`Your email address ${email} is verified.`);
    await page.locator('#signed-in').waitFor({ state: 'visible' });
    expect(await page.locator('#unverified').isHidden()).toBe(true);
    expect(await page.locator('#usage').isVisible()).toBe(true);
    expect(new URL(page.url()).hash).toBe('');
    await page.screenshot({ path: join(artifacts, 'account-email-verification-done.png') });

    // The older link was replaced by the newer one: refused in words.
    await page.goto(linkOf(first?.text)!);
    await page.waitForFunction(() =>
      document.querySelector('#message')?.classList.contains('error'),
    );
    expect(await message.textContent()).toBe(
      'This email link is invalid, already used or expired. Sign in to ask for a new one.',
    );
    // Change of address from the page: confirmed from the new one, the old one told.
    await page.locator('#email-change-email').fill('moved@example.com');
    await page.locator('#email-change-password').fill(OLD_PASSWORD);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.waitForFunction(() =>
      document.querySelector('#message')?.textContent?.startsWith('A link to confirm'),
    );
    const [, , confirmation] = await verifySmtp.received(3);
    expect(recipientOf(confirmation)).toBe('moved@example.com');
    const change = /(http:\/\/localhost:\d+\/account#email-change=[\w-]+)/.exec(
      confirmation?.text ?? '',
    )?.[1];
    await page.goto(change!);
    await page.waitForFunction(() =>
      document.querySelector('#message')?.textContent?.startsWith('Your email address is now'),
    );
    expect(await message.textContent()).toBe('Your email address is now moved@example.com.');
    await page.waitForFunction(
      () => document.querySelector('#user-email')?.textContent === 'moved@example.com',
    );
    const [, , , notice] = await verifySmtp.received(4);
    expect(recipientOf(notice)).toBe(email);
    expect(notice?.subject).toBe('The email address of your Listings Service account was changed');
    await page.screenshot({ path: join(artifacts, 'account-email-changed.png') });
    // The failed requests the page logs: /auth/me while signed out (401), the refused link (400).
    expect(problems.filter((problem) => !/\b40[01]\b/.test(problem))).toEqual([]);
  });
});
