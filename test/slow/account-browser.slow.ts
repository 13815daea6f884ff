/**
 * The account page end to end in Debian's headless Chromium, driven by
 * playwright-core over CDP with a virtual platform authenticator: sign up,
 * add a passkey, sign out, sign back in with it, rename it, delete it — all
 * through the page's own buttons; and, with SIGN_UP=closed, a page without the
 * sign-up form. Leaves test/artifacts/account*.png.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  accountBrowserSuite,
  addPlatformAuthenticator,
  chromiumPresent,
  signalCalls,
  waitForSignal,
} from './browser-page';

const artifacts = join(import.meta.dir, '..', 'artifacts');

const present = chromiumPresent('account browser test');

describe.skipIf(!present)('account page in headless Chromium', () => {
  const suite = accountBrowserSuite({
    name: 'account-browser',
    viewport: { width: 900, height: 1000 },
    chromiumArgs: [
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const { origin } = suite;

  const message = () => suite.page.locator('#message');

  test('sign up, add a passkey, sign out, sign in with it, rename and delete it', async () => {
    const { context, page, problems } = suite;
    const cdp = await context.newCDPSession(page);
    const authenticatorId = await addPlatformAuthenticator(cdp);
    const credentials = async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    const presence = (enabled: boolean) =>
      cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });

    async function signOut({ autofill }: { autofill: boolean }) {
      await presence(autofill);
      if (autofill) {
        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        return;
      }
      // Only waited for here: a waiter left pending when the test moves on
      // settles against a page whose objects Playwright has let go (it once
      // failed the run with "Object with guid response@… was not bound").
      const autofillOptions = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/auth/passkey/authenticate/options',
      );
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.locator('#signed-out').waitFor({ state: 'visible' });
      // The page got its autofill options and has called navigator.credentials.get
      // (a moment later); that request now waits for a person.
      await autofillOptions;
      await Bun.sleep(300);
      await presence(true);
    }

    const calls = { options: 0, authenticate: 0 };
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path === '/auth/passkey/authenticate/options') calls.options++;
      if (path === '/auth/passkey/authenticate') calls.authenticate++;
    });

    const response = await page.goto(`${origin}/account`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'account-signed-out.png'), fullPage: true });

    // Sign up (the page signs in right after).
    const email = 'browser.person@example.com';
    await page.fill('#sign-up-email', email);
    await page.fill('#sign-up-password', 'a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#signed-in').waitFor({ state: 'visible' });
    expect(await page.locator('#user-email').textContent()).toBe(email);
    // The list comes after the signed-in view: none yet, the page says so once it has loaded.
    await page.locator('#no-passkeys').waitFor({ state: 'visible' });

    // Add a passkey.
    await page.fill('#passkey-name', 'Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('.passkey .name', { hasText: 'Test laptop' }).waitFor();
    expect(await message().textContent()).toBe('Added the passkey “Test laptop”.');
    const stored = await credentials();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.isResidentCredential).toBe(true);

    // Sign out. The virtual authenticator answers passkey autofill (conditional
    // mediation) on its own while presence simulation is on, so it is paused
    // for the sign-out: the autofill request the page starts then stays pending.
    await signOut({ autofill: false });
    expect(await message().textContent()).toBe('You have signed out.');

    // Sign back in with the passkey, through the button.
    const before = { ...calls };
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('#signed-in').waitFor({ state: 'visible' });
    // The page shows the signed-in view, loads the passkey list, then says so.
    await page.locator('#message', { hasText: 'Signed in with a passkey' }).waitFor();
    expect(await message().textContent()).toBe(`Signed in with a passkey as ${email}.`);
    expect(calls.options - before.options).toBe(1);
    expect(calls.authenticate - before.authenticate).toBe(1);
    expect(await page.locator('.passkey .meta').textContent()).toContain('last used');
    expect((await credentials())[0]!.signCount).toBeGreaterThan(0);

    // Passkey autofill: after signing out the page offers the passkey in the
    // email field's autofill; the virtual authenticator picks it, no click.
    const autofillSignIn = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/auth/passkey/authenticate',
    );
    await signOut({ autofill: true });
    expect((await autofillSignIn).status()).toBe(200);
    await page.locator('#message', { hasText: `Signed in with a passkey as ${email}.` }).waitFor();
    expect(await page.locator('#signed-in').isVisible()).toBe(true);

    // Rename it.
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New name for Test laptop').fill('Work laptop');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.passkey .name', { hasText: 'Work laptop' }).waitFor();
    expect(await message().textContent()).toBe('Renamed the passkey to “Work laptop”.');
    await page.screenshot({ path: join(artifacts, 'account.png'), fullPage: true });

    // Delete it (with the page's own confirmation step).
    const beforeDelete = (await signalCalls(page)).length;
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.locator('#no-passkeys').waitFor({ state: 'visible' });
    expect(await message().textContent()).toBe('Deleted the passkey “Work laptop”.');
    expect(await page.locator('.passkey').count()).toBe(0);

    // After the delete the page told the browser which passkeys still count
    // (signalAllAcceptedCredentials): Chromium drops the deleted one from the
    // device, so a passkey sign-in finds none and the person is told in words.
    const accepted = await waitForSignal(page, 'signalAllAcceptedCredentials', beforeDelete);
    expect(accepted).toMatchObject({
      outcome: 'resolved',
      options: { allAcceptedCredentialIds: [] },
    });
    expect(await credentials()).toEqual([]);
    await signOut({ autofill: false });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('#message.error').waitFor();
    expect(await message().textContent()).toBe(
      'The passkey request was cancelled or timed out, or no passkey for this site was found on this device.',
    );
    await page.screenshot({ path: join(artifacts, 'account-error.png'), fullPage: true });

    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
  });
});

describe.skipIf(!present)('account page with SIGN_UP=closed in headless Chromium', () => {
  const suite = accountBrowserSuite({
    name: 'account-browser-closed',
    viewport: { width: 900, height: 700 },
    env: () => ({ SIGN_UP: 'closed' }),
  });

  test('shows sign-in only: no sign-up form in the DOM; a screenshot is saved', async () => {
    const { page, problems } = suite;
    const response = await page.goto(`${suite.origin}/account`);
    expect(response?.status()).toBe(200);
    await page.locator('#signed-out').waitFor({ state: 'visible' });
    expect(await page.locator('#sign-in-form').isVisible()).toBe(true);
    expect(await page.locator('#sign-up-form').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create account' }).count()).toBe(0);
    expect(await page.getByText('Create an account').count()).toBe(0);

    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, 'account-sign-up-closed.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);
    // The signed-out page's first look at /auth/me answers 401, as it should.
    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
  });
});
