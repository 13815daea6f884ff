/**
 * The operator console in Debian's headless Chromium (playwright-core): an
 * employee signs in and walks every console page after traffic to more
 * route groups than the plots' palette has colours — each plot drawn with
 * its y axes labelled and every value whole inside its axis (test/slow/plot-axes.ts
 * reads what the canvas drew), every group's colour its own, a customer
 * looked up by email and its plan changed —
 * with no request leaving the origin and no axe-core WCAG 2.1 AA
 * violation, at 1280 px and 360 px; a failing webhook found, one of its
 * deliveries redelivered and the endpoint disabled and enabled again; an
 * account's role changed, its password set and the account deleted, the
 * change found in the audit log, a backup taken and downloaded, replication
 * said to be off; on a second server replicating to a file:// replica, the
 * Backups page's replica state, generation and restore command; a
 * customer is refused and an anonymous
 * visitor sent to sign in; from / to the console and /account and back,
 * and signed out of the console. Leaves docs/screenshots/console*.png,
 * landing.png and account-usage.png for the README and
 * test/artifacts/console-360.png.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort, startServer } from '../accounts/server-process';
import { propertyBody } from '../listings/support';
import { axeViolations, watchPage } from './axe';
import {
  chromiumPresent,
  userCreate as createUser,
  launchChromium,
  signIn as signInAs,
} from './browser-page';
import { type DrawnChart, drawnChart, recordDrawnText, valuesOf } from './plot-axes';

const root = join(import.meta.dir, '..', '..');
const artifacts = join(import.meta.dir, '..', 'artifacts');
const screenshots = join(root, 'docs', 'screenshots');
const present = chromiumPresent('console browser test');
const PASSWORD = 'a long enough password';
/** Paths of as many route groups, on top of those the suite's own traffic makes. */
const GROUP_PATHS = [
  '/',
  '/favicon.ico',
  '/favicon.svg',
  '/site/app.css',
  '/docs',
  '/account',
  '/console',
  '/content/static-pages',
  '/listings/properties',
  '/no-such-page',
  '/health',
  '/auth/me',
];

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
    // A sign-up stays unverified until its link is followed, or an employee marks it.
    SIGN_UP: 'verify',
  };
  // A second server, replicated by Litestream into a file:// replica.
  const replicaDir = join(dir, 'replica');
  const replicatedPort = freePort();
  const replicatedOrigin = `http://localhost:${replicatedPort}`;
  const replicatedEnv = {
    ...env,
    DATABASE_PATH: join(dir, 'replicated', 'app.db'),
    PUBLIC_ORIGIN: replicatedOrigin,
    REPLICA_URL: `file://${replicaDir}`,
    REPLICA_METRICS_PORT: String(freePort()),
  };
  let replicatedServer: Awaited<ReturnType<typeof startServer>> | undefined;
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

  const userCreate = (email: string, role: string, environment = env) =>
    createUser(environment, email, role, PASSWORD);
  const signIn = (email: string) => signInAs(origin, email, PASSWORD);

  beforeAll(async () => {
    await userCreate('ops@example.com', 'employee');
    await userCreate('buyer@example.com', 'customer');
    server = await startServer(port, env);
    mkdirSync(join(dir, 'replicated'));
    await userCreate('ops@example.com', 'employee', replicatedEnv);
    replicatedServer = await startServer(replicatedPort, replicatedEnv);
    browser = await launchChromium();
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
    // More route groups than the plots' palette has colours: each needs one of its own.
    for (const path of GROUP_PATHS) await (await fetch(`${origin}${path}`)).arrayBuffer();
    await groupsRecorded(GROUP_PATHS.length);
  });

  /**
   * Waits until the minute figures have `least` route groups (usage is
   * written behind, within seconds of a request).
   */
  async function groupsRecorded(least: number) {
    for (let tries = 0; tries < 200; tries++) {
      const res = await fetch(`${origin}/admin/usage/requests?resolution=minute&hours=1`, {
        headers: { authorization: `Bearer ${opsToken}` },
      });
      const figures = (await res.json()) as { groups: unknown[] };
      if (figures.groups.length >= least) return;
      await Bun.sleep(50);
    }
    throw new Error(`fewer than ${least} route groups were recorded`);
  }

  afterAll(async () => {
    await browser?.close();
    receiver.stop(true);
    server?.kill();
    await server?.exited;
    replicatedServer?.kill();
    await replicatedServer?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A page signed in as `email` (or anonymous), recording errors and any request elsewhere. */
  async function openPage(width: number, email?: string, at = origin) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    await recordDrawnText(context);
    if (email) {
      const res = await context.request.post(`${at}/auth/sign-in`, {
        data: { email, password: PASSWORD },
        headers: { origin },
      });
      expect(res.status()).toBe(200);
    }
    const page = await context.newPage();
    const { problems, elsewhere } = await watchPage(page, at);
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

  /**
   * Each y axis has at least two values, every one of them drawn whole
   * inside its axis's box (none cut at the canvas's edge); answers the
   * values of each axis.
   */
  function valuesFit(chart: DrawnChart): string[][] {
    return chart.yAxes.map((axis) => {
      const values = valuesOf(chart, axis);
      expect(values.length).toBeGreaterThanOrEqual(2);
      for (const value of values) {
        expect({ value: value.text, fits: value.left >= axis.left - 0.5 }).toEqual({
          value: value.text,
          fits: true,
        });
        expect({ value: value.text, fits: value.right <= axis.right + 0.5 }).toEqual({
          value: value.text,
          fits: true,
        });
        expect(value.left).toBeGreaterThanOrEqual(0);
      }
      return values.map((value) => value.text);
    });
  }

  /** A plan made through the API as the employee signed in on `page`; its id. */
  async function createPlan(page: Page, name: string, limits: Record<string, number>) {
    const plan = await page.request.post(`${origin}/api/v1/admin/plans`, {
      data: { name, slug: name.toLowerCase(), limits },
      headers: { origin, 'idempotency-key': `console-plan-${name}` },
    });
    expect(plan.status()).toBe(201);
    return ((await plan.json()) as { id: number }).id;
  }

  /** The axis labels a chart drew turned, as y axes' labels are. */
  const axisLabels = (chart: DrawnChart) =>
    chart.texts.filter((text) => text.turned).map((text) => text.text);

  test('an employee walks Overview and Customers, changes a plan; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    // A plan to change to, made through the API as an employee.
    await createPlan(page, 'Pro', { minute: 300, hour: 5000 });

    // Every request opening the console makes: its own files, then the Overview's calls only.
    // The data tabs (properties, pages, neighbourhoods, plans) call nothing until opened.
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === origin) asked.push(`${request.method()} ${url.pathname}${url.search}`);
    });
    const response = await page.goto(`${origin}/console`);
    expect(response?.status()).toBe(200);
    await page.locator('#overview-status', { hasText: 'Updated' }).waitFor();
    await page.waitForLoadState('networkidle');
    // The page, its files (served from memory) and the favicon; everything else is an API call.
    const files = /^GET \/(console(\/[\w.-]+)?|favicon\.svg)$/;
    const calls = asked.filter((line) => !files.test(line)).sort();
    expect(calls).toEqual([
      'GET /admin/backups',
      'GET /admin/jobs',
      'GET /admin/status',
      'GET /admin/usage/requests?resolution=hour&hours=24',
      'GET /admin/usage/requests?resolution=minute&hours=1',
      'GET /health',
    ]);
    // Each file once.
    const fetched = asked.filter((line) => files.test(line));
    expect(fetched.length).toBe(new Set(fetched).size);
    expect(await plotsDrawn(page, 'overview')).toBe(3);
    // Requests per route group: one y axis, and a colour of its own for every group.
    const requests = await drawnChart(page, '#plot-requests');
    const day = await drawnChart(page, '#plot-day');
    for (const chart of [requests, day]) {
      expect(chart.yAxes).toHaveLength(1);
      valuesFit(chart);
      const colours = chart.legend.map((entry) => entry.colour);
      expect(new Set(colours).size).toBe(colours.length);
    }
    expect(requests.legend.length).toBeGreaterThanOrEqual(GROUP_PATHS.length);
    // A group has the same colour in both plots.
    const colourOf = new Map(requests.legend.map((entry) => [entry.label, entry.colour]));
    for (const entry of day.legend) {
      if (colourOf.has(entry.label))
        expect(entry).toEqual({ ...entry, colour: colourOf.get(entry.label)! });
    }
    // Error rate on the left, p99 latency on the right, each axis labelled and with values.
    const latency = await drawnChart(page, '#plot-latency');
    expect(latency.yAxes).toHaveLength(2);
    expect(latency.yAxes[0]!.right).toBeLessThan(latency.width / 2);
    expect(latency.yAxes[1]!.left).toBeGreaterThan(latency.width / 2);
    valuesFit(latency);
    expect(axisLabels(latency).sort()).toEqual(['error rate %', 'p99 ms']);
    expect(await page.locator('#jobs tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#service').textContent()).toContain('sqlite: ok');
    // GET /admin/status: the SQLite file and its log, and this one server as the only instance.
    const fact = (term: string) =>
      page.locator(`#service dt:text-is("${term}") + dd`).textContent();
    expect(await fact('Database size')).toMatch(/^\d+\.\d MiB \([1-9]\d* bytes\)$/);
    expect(await fact('WAL size')).toMatch(/ bytes\)$/);
    // The disk: its state against DISK_FREE_THRESHOLD_MB, and the database file system's free space.
    expect(await fact('Disk')).toMatch(/^(ok|low: under )/);
    expect(await fact('Free on database')).toMatch(/ bytes\) in \//);
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

  test("a customer's calls per hour: the y axis fits its widest value (six digits)", async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    const id = await createPlan(page, 'Bulk', { minute: 5000, hour: 250_000 });
    const set = await page.request.put(`${origin}/api/v1/admin/customers/${customerId}/plan`, {
      data: { planId: id },
      headers: { origin },
    });
    expect(set.status()).toBe(204);

    await page.goto(`${origin}/console#customers`);
    await page.getByLabel('Customer id or email').fill(customerId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.locator('#customer-status', { hasText: `Showing ${customerId}` }).waitFor();
    const calls = await drawnChart(page, '#plot-calls');
    expect(calls.yAxes).toHaveLength(1);
    // The hourly limit is drawn across at 250,000: the values run to six digits, each whole.
    const [values = []] = valuesFit(calls);
    expect(values.some((value) => /^\d{3},000$/.test(value))).toBe(true);
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  }, 60_000);

  test('an employee goes from / to the console and /account, and signs out of the console', async () => {
    const anonymous = await openPage(1280);
    const landing = await anonymous.page.goto(`${origin}/`);
    expect(landing?.status()).toBe(200);
    expect(await anonymous.page.locator('h1').textContent()).toBe('Listings service');
    for (const [name, href] of [
      ['API reference', '/docs'],
      ['Sign in or open your account', '/account'],
      ['Operator console', '/console'],
    ] as const) {
      expect(
        await anonymous.page.getByRole('link', { name, exact: true }).first().getAttribute('href'),
      ).toBe(href);
    }
    expect(await axeViolations(anonymous.page)).toEqual([]);
    await anonymous.page.setViewportSize({ width: 1280, height: 400 });
    await anonymous.page.screenshot({ path: join(screenshots, 'landing.png') });
    await anonymous.page.setViewportSize({ width: 360, height: 900 });
    expect(
      await anonymous.page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
    ).toBeLessThanOrEqual(0);
    expect(await axeViolations(anonymous.page)).toEqual([]);
    expect(anonymous.problems).toEqual([]);

    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    await page.goto(`${origin}/`);
    await page.getByRole('link', { name: 'Operator console' }).first().click();
    await page.locator('#overview-status', { hasText: 'Updated' }).waitFor();
    // The console leads back to / and to /docs and /account.
    const pages = page.getByRole('navigation', { name: 'Pages' });
    for (const [name, href] of [
      ['Home', '/'],
      ['API reference', '/docs'],
      ['Your account', '/account'],
    ] as const) {
      expect(await pages.getByRole('link', { name }).getAttribute('href')).toBe(href);
    }
    await pages.getByRole('link', { name: 'Your account' }).click();
    await page.locator('#user-email', { hasText: 'ops@example.com' }).waitFor();
    // An employee's account page leads to the console.
    await page.getByRole('link', { name: 'Operator console' }).click();
    await page.locator('#overview-status', { hasText: 'Updated' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/account`);
    await page.locator('#signed-out').waitFor();
    expect(await page.getByRole('link', { name: 'Operator console' }).isHidden()).toBe(true);
    // The session is over: the console asks to sign in.
    await page.goto(`${origin}/console`);
    expect(await page.getByText('Sign in first').count()).toBe(1);
    // The signed-out account page's first look at /auth/me answers 401, as it should.
    expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
    expect([...elsewhere, ...anonymous.elsewhere]).toEqual([]);
  }, 60_000);

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
    // The account changed is shown by its email beside its id.
    expect(await page.locator('#audit-table tbody').textContent()).toContain(
      `temp@example.com (${tempId})`,
    );
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
    // This server does not replicate: the page says so and where to read how.
    await page.locator('#replica-status', { hasText: 'Replication is off' }).waitFor();
    expect(await page.locator('#replica-status').textContent()).toContain(
      'docs/operations.md, Replication with Litestream',
    );
    expect(await page.locator('#replica-present').isHidden()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-backups.png'), fullPage: true });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  test('an employee sees an unverified address and marks it verified; axe finds nothing', async () => {
    const signedUp = await fetch(`${origin}/auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: 'pending@example.com', password: PASSWORD }),
    });
    expect(signedUp.status).toBe(202);
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    await page.goto(`${origin}/console#accounts`);
    await page.locator('#accounts-status', { hasText: 'shown' }).waitFor();
    await page.getByLabel('Email contains').fill('pending@');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#accounts-status', { hasText: '1 account shown' }).waitFor();
    const addressCell = page.locator('#accounts-table tbody tr td').nth(3);
    expect(await addressCell.textContent()).toBe('unverified');
    await page.getByRole('button', { name: 'Manage pending@example.com' }).click();
    expect(await page.locator('#account-facts').textContent()).toContain(
      'email address unverified',
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Mark email verified' }).click();
    await page.locator('#accounts-status', { hasText: 'email address marked verified' }).waitFor();
    expect(await addressCell.textContent()).toBe('verified');
    expect(await page.locator('#account-facts').textContent()).toContain('email address verified');
    // The button goes once there is nothing left to mark.
    expect(await page.getByRole('button', { name: 'Mark email verified' }).isHidden()).toBe(true);
    const found = await page.request.get(`${origin}/admin/users?email=pending%40`);
    expect(((await found.json()) as { users: { emailVerified: boolean }[] }).users).toEqual([
      expect.objectContaining({ emailVerified: true }),
    ]);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  test('with a file:// replica: the Backups page shows its state, its generation and the restore command for an instant in it; axe finds nothing, at 360 px too', async () => {
    // Litestream's first snapshot of the file is in the replica before the page lists it.
    const generations = join(replicaDir, 'generations');
    for (let tries = 0; tries < 200; tries++) {
      const [generation] = existsSync(generations) ? readdirSync(generations) : [];
      if (generation && existsSync(join(generations, generation, 'snapshots'))) break;
      await Bun.sleep(50);
    }
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com', replicatedOrigin);
    await page.goto(`${replicatedOrigin}/console#backups`);
    await page
      .locator('#replica-status', { hasText: 'Restore points as Litestream listed them' })
      .waitFor();
    const facts = await page.locator('#replica-facts').textContent();
    expect(facts).toContain(`Replicafile://${replicaDir}`);
    expect(facts).toMatch(/Statusok/);
    expect(facts).toContain('Last successful sync');
    expect(facts).toContain('bytes waiting to ship');
    const rows = page.locator('#replica-table tbody tr');
    expect(await rows.count()).toBe(1);
    const to = (await rows.first().locator('td').nth(2).textContent()) ?? '';
    expect(to).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(await rows.first().locator('td').nth(3).textContent()).toMatch(/ UTC \(\d+ bytes\)$/);
    const latest = `${to.replace(' UTC', '').replace(' ', 'T')}Z`;
    await page
      .getByRole('button', { name: /^Use its latest \(generation [0-9a-f]{16}\)$/ })
      .click();
    expect(await page.locator('#restore-command').textContent()).toBe(
      `npm run restore -- --from-replica --timestamp ${latest}`,
    );
    expect(await page.locator('#restore-note').textContent()).toContain('Stop the server first');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(artifacts, 'console-replica.png'), fullPage: true });
    // An instant no generation holds: no command, and why.
    await page.getByLabel('Restore point (UTC)').fill('2000-01-01T00:00:00Z');
    await page.getByRole('button', { name: 'Show the command' }).click();
    expect(await page.locator('#restore-command').textContent()).toBe('');
    expect(await page.locator('#restore-note').textContent()).toContain(
      "outside every generation's span",
    );
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
      ['Mail', '#mail-status'],
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
    // The plan set above has 250,000 calls an hour: the y axis still shows every value whole.
    const [values = []] = valuesFit(await drawnChart(page, '#usage-plot'));
    expect(values.some((value) => /^\d{3},000$/.test(value))).toBe(true);
    // A customer is not led to the console.
    expect(await page.getByRole('link', { name: 'Operator console' }).isHidden()).toBe(true);
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
