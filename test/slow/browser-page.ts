/**
 * What the account page's browser tests share: Chromium with a page that
 * collects its errors, a virtual platform authenticator, and a page-level
 * hook on the WebAuthn Signal API.
 */
import { afterAll, beforeAll } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { freePort, startServer } from '../accounts/server-process';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether Debian's Chromium is installed; says that `test` is skipped when it is not. */
export function chromiumPresent(test: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present) console.log(`${test} skipped: ${CHROMIUM} is absent (apt-get install chromium)`);
  return present;
}

/** Debian's headless Chromium, for suites that open a context per page. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });

const repository = join(import.meta.dir, '..', '..');

/** An account made by `scripts/user-create.ts` (the password on its stdin) in the database `env` names. */
export async function userCreate(
  env: Record<string, string>,
  email: string,
  role: string,
  password: string,
): Promise<void> {
  const proc = Bun.spawn(
    [process.execPath, 'scripts/user-create.ts', '--email', email, '--role', role],
    {
      cwd: repository,
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      stdin: new TextEncoder().encode(`${password}\n`),
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  if ((await proc.exited) !== 0) throw new Error(`user-create ${email} failed`);
}

/** Signs in by password through the API; the token and the account's id. */
export async function signIn(origin: string, email: string, password: string) {
  const res = await fetch(`${origin}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in ${email}: ${res.status}`);
  return (await res.json()) as { accessToken: string; user: { id: string } };
}

/** Debian's headless Chromium on a throw-away profile in `dir`; its first page collects errors. */
export async function launchAccountBrowser(
  dir: string,
  viewport: { width: number; height: number },
  extraArgs: string[] = [],
) {
  const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', ...extraArgs],
    viewport,
  });
  await context.addInitScript(hookSignals);
  const page: Page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') {
      problems.push(`console: ${message.text()}`);
    }
  });
  return { context, page, problems };
}

/**
 * One suite's service (`bun src/index.ts` on a free port, its own database,
 * `env` on top) and Chromium, started before its tests and removed after
 * them. `env` may name files in the suite's folder (`dir`).
 */
export function accountBrowserSuite(options: {
  name: string;
  env?: (dir: string) => Record<string, string>;
  viewport: { width: number; height: number };
  chromiumArgs?: string[];
}) {
  const dir = mkdtempSync(join(tmpdir(), `${options.name}-`));
  const port = freePort();
  const origin = `http://localhost:${port}`;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let browser: Awaited<ReturnType<typeof launchAccountBrowser>> | undefined;
  beforeAll(async () => {
    server = await startServer(port, {
      DATABASE_PATH: join(dir, 'app.db'),
      PUBLIC_ORIGIN: origin,
      ...options.env?.(dir),
    });
    browser = await launchAccountBrowser(dir, options.viewport, options.chromiumArgs);
    await firstNavigation(browser.page, `${origin}/health`);
  });
  afterAll(async () => {
    await browser?.context.close();
    server?.kill();
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const started = () => {
    if (!browser) throw new Error('the suite has not started');
    return browser;
  };
  return {
    origin,
    get context(): BrowserContext {
      return started().context;
    },
    get page(): Page {
      return started().page;
    },
    /** Page errors and console errors so far (a failed request logs one). */
    get problems(): string[] {
      return started().problems;
    },
  };
}

/**
 * The first navigation of a freshly launched Chromium, made before the tests
 * so that theirs is never the first. Tried up to three times; a retry is
 * logged, so it stays visible.
 */
async function firstNavigation(page: Page, url: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await page.goto(url);
      if (response?.ok()) return;
      throw new Error(`${url} answered ${response?.status()}`);
    } catch (error) {
      if (attempt === 3) throw error;
      console.log(`first navigation, attempt ${attempt}: ${(error as Error).message}`);
      await Bun.sleep(500);
    }
  }
}

/** A virtual platform authenticator (discoverable credentials, verifies the user, presence automatic). */
export async function addPlatformAuthenticator(cdp: CDPSession): Promise<string> {
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

/**
 * The Signal API hook, added with `addInitScript`: it wraps each signal
 * function (or stands in for it where the browser has none), records the
 * call with its options and outcome in `window.signalCalls`, then calls the
 * browser's own function.
 */
export interface SignalCall {
  name: string;
  options: Record<string, unknown>;
  outcome: 'pending' | 'resolved' | string;
}

/** Runs in the page before its own script: wraps (or stands in for) each signal. */
export function hookSignals() {
  const calls: SignalCall[] = [];
  (window as unknown as { signalCalls: SignalCall[] }).signalCalls = calls;
  const target = PublicKeyCredential as unknown as Record<string, unknown>;
  for (const name of [
    'signalAllAcceptedCredentials',
    'signalUnknownCredential',
    'signalCurrentUserDetails',
  ]) {
    const native = target[name] as ((options: unknown) => Promise<void>) | undefined;
    target[name] = (options: Record<string, unknown>) => {
      const call: SignalCall = { name, options, outcome: 'pending' };
      calls.push(call);
      const result = native ? native.call(PublicKeyCredential, options) : Promise.resolve();
      return result.then(
        () => {
          call.outcome = 'resolved';
        },
        (error: Error) => {
          call.outcome = `${error.name}: ${error.message}`;
          throw error;
        },
      );
    };
  }
}

type Hooked = { signalCalls: SignalCall[] };

/** The signal calls the page has made so far. */
export const signalCalls = (page: Page) =>
  page.evaluate(() => (window as unknown as Hooked).signalCalls);

/**
 * Waits until the page has made a `name` call after the first `since` calls
 * and the browser has settled it; answers that call.
 */
export async function waitForSignal(page: Page, name: string, since: number) {
  await page.waitForFunction(
    (want) =>
      (window as unknown as Hooked).signalCalls
        .slice(want.since)
        .some((call) => call.name === want.name && call.outcome !== 'pending'),
    { name, since },
    { polling: 50, timeout: 10_000 },
  );
  return (await signalCalls(page)).slice(since).find((call) => call.name === name)!;
}
