/**
 * The account page's password change and "sign out everywhere" in Debian's
 * headless Chromium (playwright-core over CDP), through the page's own form
 * and button: a wrong current password is told in words, the right one
 * signs out another browser and revokes an earlier bearer token while this
 * page stays signed in, and "sign out everywhere" ends the page's own
 * session. Leaves test/artifacts/account-password-*.png and
 * account-signed-out-everywhere.png.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { accountBrowserSuite, CHROMIUM, chromiumPresent } from './browser-page';

const artifacts = join(import.meta.dir, '..', 'artifacts');
const present = chromiumPresent('account lifecycle browser test');

const EMAIL = 'lifecycle.person@example.com';
const PASSWORD = 'the first long password';
const NEW_PASSWORD = 'the second long password';

describe.skipIf(!present)('password change and sign out everywhere in headless Chromium', () => {
  const suite = accountBrowserSuite({
    name: 'account-lifecycle-browser',
    viewport: { width: 900, height: 1400 },
  });
  const { origin } = suite;

  const message = (page: Page) => page.locator('#message');
  const signInThroughPage = async (page: Page, password: string) => {
    await page.goto(`${origin}/account`);
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    await page.fill('#sign-in-email', EMAIL);
    await page.fill('#sign-in-password', password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('#signed-in').waitFor({ state: 'visible' });
  };
  /** What /auth/me answers to a credential, outside any browser. */
  const meStatus = async (headers: Record<string, string>) =>
    (await fetch(`${origin}/auth/me`, { headers })).status;

  test('wrong current password told in words; the change signs out the other browser and the earlier token; sign out everywhere ends this session', async () => {
    const { page, problems } = suite;
    mkdirSync(artifacts, { recursive: true });

    // Sign up through the page (it signs in right after).
    await page.goto(`${origin}/account`);
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    await page.fill('#sign-up-email', EMAIL);
    await page.fill('#sign-up-password', PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#signed-in').waitFor({ state: 'visible' });

    // A bearer token issued before the change, as a script would hold it.
    const signIn = await fetch(`${origin}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    const { accessToken } = (await signIn.json()) as { accessToken: string };
    const bearer = { authorization: `Bearer ${accessToken}` };
    expect(await meStatus(bearer)).toBe(200);

    // Another browser (a context of its own, its own cookie jar), signed in.
    const otherBrowser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const other = await (await otherBrowser.newContext()).newPage();
      await signInThroughPage(other, PASSWORD);
      expect(await other.locator('#user-email').textContent()).toBe(EMAIL);

      // A wrong current password: said in words, nothing signed out.
      await page.fill('#current-password', 'not my password at all');
      await page.fill('#new-password', NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.locator('#message.error').waitFor();
      expect(await message(page).textContent()).toBe(
        "That isn't your current password. Check it and try again.",
      );
      expect(await page.locator('#signed-in').isVisible()).toBe(true);
      await page.screenshot({
        path: join(artifacts, 'account-password-error.png'),
        fullPage: true,
      });
      expect(await meStatus(bearer)).toBe(200);

      // The right one.
      await page.fill('#current-password', PASSWORD);
      await page.fill('#new-password', NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.locator('#message', { hasText: 'Your password has been changed' }).waitFor();
      expect(await message(page).textContent()).toBe(
        'Your password has been changed. Your other browsers are signed out.',
      );
      expect(await page.locator('#message').getAttribute('class')).not.toContain('error');
      // The form is empty again, and still names the account for a password manager.
      expect(await page.inputValue('#current-password')).toBe('');
      expect(await page.inputValue('#password-username')).toBe(EMAIL);
      // Only this browser's session is listed now (the list is reloaded after the message).
      await page.locator('#session-list > li').nth(1).waitFor({ state: 'detached' });
      expect(await page.locator('#session-list > li').count()).toBe(1);
      await page.screenshot({
        path: join(artifacts, 'account-password-changed.png'),
        fullPage: true,
      });

      // The earlier bearer token answers 401 at once; the other browser is signed out.
      expect(await meStatus(bearer)).toBe(401);
      await other.reload();
      await other.locator('#signed-out').waitFor({ state: 'visible' });
      // This page's own session continues.
      await page.reload();
      await page.locator('#signed-in').waitFor({ state: 'visible' });
      expect(await page.locator('#user-email').textContent()).toBe(EMAIL);

      // The other browser signs in with the new password, not the old.
      await signInThroughPage(other, NEW_PASSWORD);
      const otherCookies = await other.context().cookies(origin);
      const otherCookie = otherCookies.map((c) => `${c.name}=${c.value}`).join('; ');
      expect(await meStatus({ cookie: otherCookie })).toBe(200);

      // Sign out everywhere, from this page: this session ends too, and the other.
      const ownCookies = await suite.context.cookies(origin);
      const ownCookie = ownCookies.map((c) => `${c.name}=${c.value}`).join('; ');
      expect(await meStatus({ cookie: ownCookie })).toBe(200);
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.locator('#signed-out').waitFor({ state: 'visible' });
      expect(await message(page).textContent()).toBe(
        'You have signed out everywhere, this browser too.',
      );
      await page.screenshot({
        path: join(artifacts, 'account-signed-out-everywhere.png'),
        fullPage: true,
      });
      expect(await meStatus({ cookie: ownCookie })).toBe(401);
      expect(await meStatus({ cookie: otherCookie })).toBe(401);
      await page.reload();
      await page.locator('#signed-out').waitFor({ state: 'visible' });
      await other.reload();
      await other.locator('#signed-out').waitFor({ state: 'visible' });
    } finally {
      await otherBrowser.close();
    }

    // The only failed requests were the expected 401s (signed-out page loads, the wrong password).
    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
  });
});
