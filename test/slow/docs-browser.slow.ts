/**
 * The API reference at /docs in Debian's headless Chromium (playwright-core):
 * it renders every operation of /docs/json from this origin alone — any
 * request to another host fails the test — and leaves
 * test/artifacts/docs.png and docs-operation.png (one operation opened).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { freePort, startServer } from '../accounts/server-process';
import { CHROMIUM, chromiumPresent } from './browser-page';

const artifacts = join(import.meta.dir, '..', 'artifacts');
const present = chromiumPresent('docs browser test');

describe.skipIf(!present)('/docs in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-browser-'));
  const port = freePort();
  const origin = `http://localhost:${port}`;
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(port, { DATABASE_PATH: join(dir, 'app.db'), PUBLIC_ORIGIN: origin });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('renders every operation of /docs/json, offline: nothing is fetched from elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    // Offline: a request to any other host is refused and recorded.
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === origin) return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });

    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    const document = (await (await fetch(`${origin}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(document.paths).reduce(
      (n, item) => n + Object.keys(item).length,
      0,
    );
    await page
      .locator('details.operation')
      .nth(operations - 1)
      .waitFor();
    expect(await page.locator('details.operation').count()).toBe(operations);

    // One operation opened: its answers are listed with their media types.
    const create = page.locator('details.operation', { hasText: 'createProperty' }).first();
    await create.locator('summary').click();
    await expect(
      create.locator('td', { hasText: 'application/problem+json' }).count(),
    ).resolves.toBeGreaterThan(0);
    await expect(create.textContent()).resolves.toContain('Idempotency-Key');

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'docs.png'), fullPage: false });
    await create.screenshot({ path: join(artifacts, 'docs-operation.png') });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);
});
