/**
 * The operator console in Debian's headless Chromium (playwright-core): an
 * employee signs in and walks every console page after some traffic —
 * each plot drawn, a customer looked up by email and its plan changed —
 * with no request leaving the origin and no axe-core WCAG 2.1 AA
 * violation, at 1280 px and 360 px; a failing webhook found, one of its
 * deliveries redelivered and the endpoint disabled and enabled again; an
 * account's role changed, its password set and the account deleted, the
 * change found in the audit log, a backup taken and downloaded; a
 * customer is refused and an anonymous
 * visitor sent to sign in. Leaves docs/screenshots/console*.png for the
 * README and test/artifacts/console-customer-360.png.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freePort, startServer } from '../accounts/server-process';
import { propertyBody } from '../listings/support';
import { axeViolations, watchPage } from './axe';
import { CHROMIUM, chromiumPresent } from './browser-page';

const root = join(import.meta.dir, '..', '..');
const artifacts = join(import.meta.dir, '..', 'artifacts');
const screenshots = join(root, 'docs', 'screenshots');
const present = chromiumPresent('console browser test');
const PASSWORD = 'a long enough password';

describe.skipIf(!present)('/console in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-browser-'));
  const port = freePort();
  const origin = `http://localhost:${port}`;
  const env = {
    DATABASE_PATH: join(dir, 'app.db'),
    PUBLIC_ORIGIN: origin,
    // The failing receiver below is plain http on this machine.
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // The employee signs in once per page, more than the default 5 a minute.
    PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '60',
  };
  const receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response('down', { status: 503 }),
  });
  const hookUrl = `http://127.0.0.1:${receiver.port}/hook`;
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;
  let customerId = '';
  let opsToken = '';

  async function userCreate(email: string, role: string) {
    const proc = Bun.spawn(
      [process.execPath, 'scripts/user-create.ts', '--email', email, '--role', role],
      {
        cwd: root,
        env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
        stdin: new TextEncoder().encode(`${PASSWORD}\n`),
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    expect(await proc.exited).toBe(0);
  }

  async function signIn(email: string) {
    const res = await fetch(`${origin}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { accessToken: string; user: { id: string } };
  }

  beforeAll(async () => {
    await userCreate('ops@example.com', 'employee');
    await userCreate('buyer@example.com', 'customer');
    server = await startServer(port, env);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    // Traffic for the plots: a customer calling the customer API, and some reads.
    const customer = await signIn('buyer@example.com');
    customerId = customer.user.id;
    opsToken = (await signIn('ops@example.com')).accessToken;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${origin}/api/v1/c/transactions`, {
        headers: { authorization: `Bearer ${customer.accessToken}` },
      });
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 5; i++) expect((await fetch(`${origin}/health`)).status).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
    receiver.stop(true);
    server?.kill();
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A page signed in as `email` (or anonymous), recording errors and any request elsewhere. */
  async function openPage(width: number, email?: string) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    if (email) {
      const res = await context.request.post(`${origin}/auth/sign-in`, {
        data: { email, password: PASSWORD },
        headers: { origin },
      });
      expect(res.status()).toBe(200);
    }
    const page = await context.newPage();
    const { problems, elsewhere } = await watchPage(page, origin);
    return { page, problems, elsewhere };
  }

  /**
   * Waits until the endpoint's newest delivery has been attempted (the
   * receiver answers 503). Committed events start a delivery run at once, so
   * a run asked for here may find that one going (409); it is asked for only
   * so that an event the schedule would take is not waited for.
   */
  async function attempted(page: Page, hookId: string) {
    for (let tries = 0; tries < 100; tries++) {
      const log = await page.request.get(`${origin}/listings/webhooks/${hookId}/deliveries`);
      const newest = ((await log.json()) as { data: { responseStatus: number | null }[] }).data[0];
      if (newest?.responseStatus === 503) return;
      const run = await fetch(`${origin}/admin/jobs/webhook-delivery/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opsToken}`, origin },
      });
      expect([200, 409]).toContain(run.status);
      await Bun.sleep(50);
    }
    throw new Error(`no attempt of a delivery to endpoint ${hookId} was recorded`);
  }

  const plotsDrawn = (page: Page, section: string) =>
    page.locator(`#${section} .plot canvas`).count();

  test('an employee walks Overview and Customers, changes a plan; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    // A plan to change to, made through the API as an employee.
    const plan = await page.request.post(`${origin}/api/v1/admin/plans`, {
      data: { name: 'Pro', slug: 'pro', limits: { minute: 300, hour: 5000 } },
      headers: { origin, 'idempotency-key': 'console-plan' },
    });
    expect(plan.status()).toBe(201);

    const response = await page.goto(`${origin}/console`);
    expect(response?.status()).toBe(200);
    await page.locator('#overview-status', { hasText: 'Updated' }).waitFor();
    expect(await plotsDrawn(page, 'overview')).toBe(3);
    expect(await page.locator('#jobs tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#service').textContent()).toContain('sqlite: ok');
    // GET /admin/status: the SQLite file and its log, and this one server as the only instance.
    const fact = (term: string) =>
      page.locator(`#service dt:text-is("${term}") + dd`).textContent();
    expect(await fact('Database size')).toMatch(/^\d+\.\d MiB \([1-9]\d* bytes\)$/);
    expect(await fact('WAL size')).toMatch(/ bytes\)$/);
    expect(await fact('Instances live')).toBe('1');
    expect(await fact('Instances seen (last 15 min)')).toMatch(/^\S+-\d+-\w{4}$/);
    expect(await axeViolations(page)).toEqual([]);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'console.png'), fullPage: true });

    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByLabel('Customer id or email').fill('buyer@example.com');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('#customer-status', { hasText: `Showing ${customerId}` }).waitFor();
    expect(await plotsDrawn(page, 'customers')).toBe(1);
    expect(await page.locator('#customer-plan').textContent()).toBe('Standard');
    const minute = page.locator('#windows tbody tr', { hasText: 'minute' });
    expect(await minute.locator('td').nth(1).textContent()).toBe('5');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('Change plan').selectOption({ label: 'Pro' });
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.locator('#customer-status', { hasText: 'changed to Pro' }).waitFor();
    expect(await page.locator('#customer-plan').textContent()).toBe('Pro');
    // As the API does, the change is audited.
    const audit = await page.request.get(`${origin}/admin/audit?action=customer_plan.set`);
    expect(audit.status()).toBe(200);
    expect(JSON.stringify(await audit.json())).toContain(customerId);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-customer.png'), fullPage: true });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  test('an employee finds a failing webhook, redelivers, disables and enables it; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    const hook = await page.request.post(`${origin}/listings/webhooks`, {
      data: { url: hookUrl },
      headers: { origin },
    });
    expect(hook.status()).toBe(201);
    const property = await page.request.post(`${origin}/listings/properties`, {
      data: propertyBody(),
      headers: { origin, 'idempotency-key': 'console-property' },
    });
    expect(property.status()).toBe(201);
    const hookId = ((await hook.json()) as { id: string }).id;
    await attempted(page, hookId);

    await page.goto(`${origin}/console#webhooks`);
    await page.locator('#webhooks-status', { hasText: '1 endpoint,' }).waitFor();
    const row = page.locator('#webhooks-table tbody tr', { hasText: hookUrl });
    expect(await row.textContent()).toContain('answered 503');
    expect(await row.textContent()).toContain('0% of 1');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Deliveries to ${hookUrl}` }).click();
    const delivery = page.locator('#deliveries tbody tr', { hasText: 'property.created' });
    await delivery.waitFor();
    expect(await delivery.textContent()).toContain('answered 503');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-webhooks.png'), fullPage: true });

    await delivery.getByRole('button', { name: /^Redeliver delivery/ }).click();
    await page.locator('#webhooks-status', { hasText: 'is due again' }).waitFor();
    await page.getByRole('button', { name: `Disable ${hookUrl}` }).click();
    await page.locator('#webhooks-status', { hasText: `${hookUrl} disabled.` }).waitFor();
    expect(await row.textContent()).toContain('disabled');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: `Enable ${hookUrl}` }).click();
    await page.locator('#webhooks-status', { hasText: `${hookUrl} enabled.` }).waitFor();
    // Both changes went through the API: the redelivery is due again, the endpoint enabled.
    const log = await page.request.get(`${origin}/listings/webhooks/${hookId}/deliveries`);
    expect(((await log.json()) as { data: { status: string }[] }).data[0]?.status).toBe('pending');
    const shown = await page.request.get(`${origin}/listings/webhooks/${hookId}`);
    expect(((await shown.json()) as { enabled: boolean }).enabled).toBe(true);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  test('an employee changes an account, finds it in the audit log, takes a backup; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    const made = await page.request.post(`${origin}/admin/users`, {
      data: { email: 'temp@example.com', password: PASSWORD, role: 'customer' },
      headers: { origin },
    });
    expect(made.status()).toBe(201);
    const tempId = ((await made.json()) as { id: string }).id;

    await page.goto(`${origin}/console#accounts`);
    await page.locator('#accounts-status', { hasText: 'shown' }).waitFor();
    await page.getByLabel('Email contains').fill('temp@');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#accounts-status', { hasText: '1 account shown' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Manage temp@example.com' }).click();
    await page.getByLabel('Role', { exact: true }).nth(1).selectOption('employee');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.locator('#accounts-status', { hasText: 'role employee' }).waitFor();
    expect(await page.locator('#accounts-table tbody').textContent()).toContain('employee');
    await page.getByLabel('New password').fill('another long enough password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.locator('#accounts-status', { hasText: 'password set' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-accounts.png'), fullPage: true });

    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByLabel('Action').fill('account.role_changed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('#audit-status', { hasText: '1 event shown' }).waitFor();
    expect(await page.locator('#audit-table tbody').textContent()).toContain(tempId);
    expect(await axeViolations(page)).toEqual([]);

    // Deleting asks for the confirmation box first: without it nothing is sent.
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('button', { name: 'Delete account' }).click();
    expect((await page.request.get(`${origin}/admin/users/${tempId}`)).status()).toBe(200);
    await page.getByLabel('Yes, delete this account for good').check();
    await page.getByRole('button', { name: 'Delete account' }).click();
    await page.locator('#accounts-status', { hasText: 'temp@example.com: deleted' }).waitFor();
    expect((await page.request.get(`${origin}/admin/users/${tempId}`)).status()).toBe(404);

    await page.getByRole('link', { name: 'Backups' }).click();
    await page.getByRole('button', { name: 'Take a backup now' }).click();
    await page.locator('#backups-status', { hasText: 'taken' }).waitFor();
    const link = page.locator('#backups-table tbody a').first();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/admin\/backups\/backup-/);
    const download = await page.request.get(`${origin}${href}`);
    expect(download.status()).toBe(200);
    expect(download.headers()['content-type']).toBe('application/gzip');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-backups.png'), fullPage: true });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  test('at 360 px: nothing wider than the screen, axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(360, 'ops@example.com');
    await page.goto(`${origin}/console`);
    await page.locator('#overview-status', { hasText: 'Updated' }).waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await axeViolations(page)).toEqual([]);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'console-360.png'), fullPage: true });
    for (const [tab, loaded] of [
      ['Webhooks', '#webhooks-status'],
      ['Accounts', '#accounts-status'],
      ['Audit', '#audit-status'],
      ['Backups', '#backups-table tbody tr'],
    ] as const) {
      await page.getByRole('link', { name: tab }).click();
      await page.locator(loaded).filter({ hasText: /\S/ }).first().waitFor();
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        ),
      ).toBeLessThanOrEqual(0);
      expect([tab, await axeViolations(page)]).toEqual([tab, []]);
    }
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  test('a customer sees its plan, usage, plot and failing webhook at /account and redelivers; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'buyer@example.com');
    const hook = await page.request.post(`${origin}/listings/webhooks`, {
      data: { url: `${hookUrl}/buyer` },
      headers: { origin },
    });
    expect(hook.status()).toBe(201);
    // A property of the customer's, made by an employee: its event goes to the customer's endpoint.
    const property = await fetch(`${origin}/listings/properties`, {
      method: 'POST',
      body: JSON.stringify(propertyBody({ ownerId: customerId })),
      headers: {
        authorization: `Bearer ${opsToken}`,
        'content-type': 'application/json',
        'idempotency-key': 'account-property',
      },
    });
    expect(property.status).toBe(201);
    await attempted(page, ((await hook.json()) as { id: string }).id);

    await page.goto(`${origin}/account`);
    await page.locator('#usage-plot canvas').waitFor();
    expect(await page.locator('#plan-name').textContent()).toMatch(/\S/);
    const minute = page.locator('#usage-windows tbody tr', { hasText: 'minute' });
    expect(await minute.locator('td').nth(2).textContent()).toMatch(/^\d+$/);
    const endpoint = page.locator('#webhook-list section', { hasText: `${hookUrl}/buyer` });
    const failed = endpoint.locator('tbody tr').first();
    expect(await failed.locator('td').nth(3).textContent()).toBe('503');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'account-usage.png'), fullPage: true });

    await failed.getByRole('button', { name: /^Redeliver delivery / }).click();
    await page.locator('#webhooks-status', { hasText: 'will be sent again' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.setViewportSize({ width: 360, height: 900 });
    expect(
      await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
    ).toBeLessThanOrEqual(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  test('a customer is refused; an anonymous visitor is sent to sign in', async () => {
    const customer = await openPage(1280, 'buyer@example.com');
    const refused = await customer.page.goto(`${origin}/console`);
    expect(refused?.status()).toBe(403);
    expect(await customer.page.locator('h1').textContent()).toBe('Employees only');
    expect(await axeViolations(customer.page)).toEqual([]);

    const anonymous = await openPage(1280);
    const signIn = await anonymous.page.goto(`${origin}/console`);
    expect(signIn?.status()).toBe(200);
    expect(await anonymous.page.getByRole('link', { name: '/account' }).count()).toBe(1);
    expect(await axeViolations(anonymous.page)).toEqual([]);
    expect([...customer.elsewhere, ...anonymous.elsewhere]).toEqual([]);
  }, 60_000);
});
