/**
 * axe-core run in a page under test: the WCAG 2.0/2.1 A and AA rules, each
 * violation as `rule: selector…` so a failing test names what to fix. The
 * script is added through the DevTools protocol (playwright's addScriptTag
 * would need an inline script the pages' policies refuse).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; nodes: { target: unknown[] }[] }[];
}

export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in globalThis);
  if (!loaded) await page.evaluate(AXE);
  const result = (await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<unknown> };
      }
    ).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }),
  )) as AxeResult;
  return result.violations.map(
    ({ id, nodes }) => `${id}: ${nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/**
 * Records a page's script errors and refuses, recording it, any request to
 * another origin than `origin`: a page that works offline leaves both empty.
 */
export async function watchPage(page: Page, origin: string) {
  const problems: string[] = [];
  const elsewhere: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) return route.continue();
    elsewhere.push(url.href);
    return route.abort();
  });
  return { problems, elsewhere };
}
