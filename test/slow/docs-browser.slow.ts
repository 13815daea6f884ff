/**
 * The API reference at /docs (Swagger UI) in Debian's headless Chromium
 * (playwright-core): it renders every operation of /docs/json from this
 * origin alone — any request to another host fails the test — its try-it
 * answers 200 for GET /health and, once authorized with a token, for the
 * list operations with the values the page fills in itself, axe-core finds
 * no WCAG 2.1 AA violation, and it leaves test/artifacts/docs.png and
 * docs-try-it.png, and the README's docs/screenshots/docs.png.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { TokenService } from '@/auth/tokens';
import { freePort, startServer } from '../accounts/server-process';
import { axeViolations, watchPage } from './axe';
import { chromiumPresent, launchChromium } from './browser-page';
import { JWT_SECRET, randomProperty, seeded } from './support';

const artifacts = join(import.meta.dir, '..', 'artifacts');
/** The README's tour shows this one. */
const screenshots = join(import.meta.dir, '..', '..', 'docs', 'screenshots');
const present = chromiumPresent('docs browser test');

describe.skipIf(!present)('/docs in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-browser-'));
  const port = freePort();
  const origin = `http://localhost:${port}`;
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(port, {
      ...{ DATABASE_PATH: join(dir, 'app.db'), PUBLIC_ORIGIN: origin, JWT_SECRET },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  async function openDocs(width: number) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const { problems, elsewhere } = await watchPage(page, origin);
    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    return { page, problems, elsewhere };
  }

  test('renders every operation of /docs/json, and try-it answers 200 for GET /health', async () => {
    const { page, problems, elsewhere } = await openDocs(1280);
    const document = (await (await fetch(`${origin}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(document.paths).reduce(
      (n, item) => n + Object.keys(item).length,
      0,
    );
    await page
      .locator('.opblock')
      .nth(operations - 1)
      .waitFor();
    expect(await page.locator('.opblock').count()).toBe(operations);
    expect(await axeViolations(page)).toEqual([]);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'docs.png'), fullPage: false });

    const health = page.locator('.opblock-get', { has: page.locator('[data-path="/health"]') });
    await health.first().locator('.opblock-summary-control').click();
    await health.first().getByRole('button', { name: 'Try it out' }).click();
    await health.first().getByRole('button', { name: 'Execute' }).click();
    const status = health
      .first()
      .locator('.live-responses-table tr.response .response-col_status')
      .first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await axeViolations(page)).toEqual([]);
    await health.first().screenshot({ path: join(artifacts, 'docs-try-it.png') });
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'docs.png') });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  /** Expands GET `path`, presses "Try it out", fills the path parameters, presses "Execute": the status shown. */
  async function tryIt(page: Page, path: string, pathParameters: Record<string, string> = {}) {
    const operation = page
      .locator('.opblock-get', { has: page.locator(`[data-path="${path}"]`) })
      .first();
    await operation.locator('.opblock-summary-control').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    for (const [name, value] of Object.entries(pathParameters))
      await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status');
    await status.first().waitFor();
    return (await status.first().textContent())?.trim();
  }

  test('authorized with a token, try-it of the list operations with the filled-in values answers 200', async () => {
    const customer = 'docs-browser-customer';
    const token = await new TokenService(JWT_SECRET).issue(customer, 'customer', 3600);
    const created = await fetch(`${origin}/listings/properties`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...randomProperty(seeded(7), 'Docs try-it 1'), ownerId: customer }),
    });
    expect(created.status).toBe(201);
    const propertyId = created.headers.get('location')!.split('/').pop()!;

    const { page, problems, elsewhere } = await openDocs(1280);
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const bearer = page.locator('.dialog-ux .modal-ux .auth-container', { hasText: 'bearer' });
    await bearer.locator('input').fill(token);
    // Swagger UI labels this button "Apply credentials" for assistive technology.
    await bearer.locator('.auth-btn-wrapper button.authorize').click();
    await bearer.locator('.auth-btn-wrapper button.btn-done').click();

    expect(await tryIt(page, '/listings/properties')).toBe('200');
    expect(await tryIt(page, '/listings/properties/{id}/units', { id: propertyId })).toBe('200');
    expect(await tryIt(page, '/content/static-pages/')).toBe('200');
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  test('fits 360 px: nothing wider than the viewport', async () => {
    const { page, problems, elsewhere } = await openDocs(360);
    await page.locator('.opblock').first().waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);
});
