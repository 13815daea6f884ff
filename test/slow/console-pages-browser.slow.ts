/**
 * The console's data editors in Debian's headless Chromium (playwright-core):
 * an employee writes a static page in Spanish, its preview drawn live as
 * text (markup in the page stays text), publishes it and reads it back
 * through GET with `Accept-Language: es`; adds an English version from the
 * Spanish text and sees both side by side; an empty title refused with the
 * API's sentence beside the field; a save over another editor's change
 * refused as "changed since you opened it", the other's text kept, and
 * reloaded; unpublished and deleted; a neighbourhood created and edited, a
 * plan created (two submits, one request), refused with a 422 beside its
 * slug, edited and deleted, each refused when changed through the API since
 * it was opened — each checked through the API. axe-core finds no WCAG 2.1 AA violation in
 * the empty, loaded, error and conflict states; every page is reached and
 * used from the keyboard, and nothing is wider than 360 px. Leaves
 * docs/screenshots/console-pages*.png, console-neighbourhoods.png and
 * console-plans.png.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freePort, startServer } from '../accounts/server-process';
import { axeViolations, watchPage } from './axe';
import { CHROMIUM, chromiumPresent } from './browser-page';

const root = join(import.meta.dir, '..', '..');
const screenshots = join(root, 'docs', 'screenshots');
const present = chromiumPresent('console pages browser test');
const PASSWORD = 'a long enough password';
const SPANISH = {
  title: 'Sobre nosotros',
  content:
    'Alquilamos pisos en Madrid desde 2009.\n\n<script>alert("no")</script> <b>sin marcas</b>',
  metaTitle: 'Quiénes somos',
  metaDescription: 'La empresa, su historia y su equipo.',
};

describe.skipIf(!present)('the console edits static pages, neighbourhoods and plans', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-pages-'));
  const port = freePort();
  const origin = `http://localhost:${port}`;
  const env = {
    DATABASE_PATH: join(dir, 'app.db'),
    PUBLIC_ORIGIN: origin,
    PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '60',
  };
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;
  let token = '';

  beforeAll(async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        'scripts/user-create.ts',
        '--email',
        'ops@example.com',
        '--role',
        'employee',
      ],
      {
        cwd: root,
        env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
        stdin: new TextEncoder().encode(`${PASSWORD}\n`),
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    expect(await proc.exited).toBe(0);
    server = await startServer(port, env);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const signIn = await fetch(`${origin}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    token = ((await signIn.json()) as { accessToken: string }).accessToken;
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The API as the test's own client (bearer token), to check what the console wrote. */
  const apiCall = (path: string, init: RequestInit = {}, headers: Record<string, string> = {}) =>
    fetch(`${origin}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...headers,
      },
    });

  async function openConsole(width: number, hash: string) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const res = await context.request.post(`${origin}/auth/sign-in`, {
      data: { email: 'ops@example.com', password: PASSWORD },
      headers: { origin },
    });
    expect(res.status()).toBe(200);
    const page = await context.newPage();
    const watched = await watchPage(page, origin);
    expect((await page.goto(`${origin}/console#${hash}`))?.status()).toBe(200);
    return { page, ...watched };
  }

  /**
   * The page's errors but the browser's note of each 400, 404 and 422 it
   * was answered: the editors read languages that are not published (404)
   * and show refusals (400, 412, 422), which the tests check themselves.
   */
  const unexpected = (problems: string[]) =>
    problems.filter(
      (problem) =>
        !/^console: Failed to load resource: .* status of (400|404|412|422) /.test(problem),
    );

  /** The console's writes to paths containing `fragment`: method, If-Match sent, status answered. */
  function watchWrites(page: Page, fragment: string) {
    const writes: { method: string; ifMatch: string | null; status: number }[] = [];
    page.on('response', (response) => {
      const request = response.request();
      if (request.method() === 'GET' || !request.url().includes(fragment)) return;
      const ifMatch = request.headers()['if-match'] ?? null;
      writes.push({ method: request.method(), ifMatch, status: response.status() });
    });
    return writes;
  }

  /** An entry opened from its list: read alone (with its ETag), then the keyboard in `field`. */
  const focusOn = (page: Page, field: string) =>
    page.waitForFunction((id) => document.activeElement?.id === id, field);

  const overflow = (page: Page) =>
    page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );

  /** The field's error line: shown, tied to it by aria-describedby, the field marked invalid. */
  async function errorBeside(page: Page, field: string) {
    const line = page.locator(`#${field}-error`);
    await line.waitFor();
    const input = page.locator(`#${field}`);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect((await input.getAttribute('aria-describedby'))?.split(' ')).toContain(`${field}-error`);
    return (await line.textContent()) ?? '';
  }

  test('empty: each new page says there is nothing yet; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openConsole(1280, 'pages');
    await page.locator('#pages-status', { hasText: '0 pages, 0 not published.' }).waitFor();
    expect([await page.locator('#pages-table tbody').textContent()]).toEqual(['No page.']);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Neighbourhoods' }).click();
    await page.locator('#neighbourhoods-status', { hasText: '0 neighbourhoods.' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Plans', exact: true }).click();
    await page.locator('#plans-status', { hasText: '0 stored plans.' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  test('a page written in Spanish, previewed as text, published and read through Accept-Language: es; an English version beside it', async () => {
    const { page, problems, elsewhere } = await openConsole(1280, 'pages');
    await page.locator('#pages-status', { hasText: 'not published' }).waitFor();
    // A page is addressed by slug and language: without them there is nothing to open.
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    expect(await errorBeside(page, 'page-open-slug')).toBe(
      'Type the slug of the page to open or start.',
    );
    expect(await errorBeside(page, 'page-open-language')).toBe(
      'Type its language, such as es or en-GB.',
    );
    expect(await page.locator('#page-editor').isHidden()).toBe(true);
    await page.locator('#page-open-slug').fill('sobre-nosotros');
    await page.getByRole('textbox', { name: 'Language', exact: true }).fill('es');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.locator('#page-editor-status', { hasText: 'No sobre-nosotros in es yet' }).waitFor();
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill(SPANISH.title);
    await page.getByRole('textbox', { name: 'Content', exact: true }).fill(SPANISH.content);
    await page.getByRole('textbox', { name: 'SEO title', exact: true }).fill(SPANISH.metaTitle);
    await page
      .getByRole('textbox', { name: 'SEO description', exact: true })
      .fill(SPANISH.metaDescription);
    await page.getByRole('textbox', { name: 'Category', exact: true }).fill('empresa');
    await page.getByRole('textbox', { name: 'Group', exact: true }).fill('legal');
    await page
      .getByRole('textbox', { name: 'SEO metadata (a JSON object)', exact: true })
      .fill('{"robots": "index"}');
    // The preview follows the typing, and the page's text stays text.
    expect(await page.locator('#preview-heading').textContent()).toBe(SPANISH.title);
    expect(await page.locator('#preview-content').textContent()).toBe(SPANISH.content);
    expect(await page.locator('#preview-content script, #preview-content b').count()).toBe(0);
    expect(await page.locator('#preview-meta-title').textContent()).toBe(SPANISH.metaTitle);
    const previewed = JSON.parse((await page.locator('#page-preview-json').textContent()) ?? '');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page
      .locator('#page-editor-status', { hasText: 'Created sobre-nosotros in es, published.' })
      .waitFor();

    // What GET serves is what the preview showed.
    const read = await fetch(`${origin}/content/static-pages/sobre-nosotros`, {
      headers: { 'accept-language': 'es' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('content-language')).toBe('es');
    const served = await read.json();
    expect(served).toEqual(previewed);
    expect(served).toEqual({
      ...SPANISH,
      accounting: {},
      language: 'es',
      category: 'empresa',
      slug: 'sobre-nosotros',
      group: 'legal',
      seoMetaData: { robots: 'index' },
    });
    await page.locator('#pages-status', { hasText: '1 page, 0 not published.' }).waitFor();

    // An English version, started from the Spanish text.
    await page
      .getByRole('textbox', { name: 'Add a language (starts from this text)', exact: true })
      .fill('en');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('#page-editor-title', { hasText: 'sobre-nosotros (en)' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Content', exact: true }).inputValue()).toBe(
      SPANISH.content,
    );
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('About us');
    await page
      .getByRole('textbox', { name: 'Content', exact: true })
      .fill('We have let flats in Madrid since 2009.');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page
      .locator('#page-editor-status', { hasText: 'Created sobre-nosotros in en, published.' })
      .waitFor();
    const english = await fetch(`${origin}/content/static-pages/sobre-nosotros`, {
      headers: { 'accept-language': 'en' },
    });
    expect(((await english.json()) as { title: string }).title).toBe('About us');
    // Side by side: the Spanish version beside the English editor, and the list per language.
    await page.locator('#page-variants article', { hasText: `es: ${SPANISH.title}` }).waitFor();
    expect(await page.locator('#page-variants article').getAttribute('lang')).toBe('es');
    await page.getByRole('combobox', { name: 'Show language' }).selectOption('es');
    await page.locator('#pages-status', { hasText: '1 page in es, 0 not published.' }).waitFor();
    await page.getByRole('combobox', { name: 'Show language' }).selectOption('');
    await page.locator('#pages-status', { hasText: '2 pages, 0 not published.' }).waitFor();
    await page.getByRole('button', { name: 'Edit sobre-nosotros (es)' }).click();
    await page.locator('#page-variants article', { hasText: 'en: About us' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Title', exact: true }).inputValue()).toBe(
      SPANISH.title,
    );
    expect(await axeViolations(page)).toEqual([]);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'console-pages.png'), fullPage: true });
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  test("an empty title is refused with the API's sentence beside the field; JSON that is not an object beside its own", async () => {
    const { page, problems, elsewhere } = await openConsole(1280, 'pages');
    await page.getByRole('button', { name: 'Edit sobre-nosotros (es)' }).click();
    await page.locator('#page-editor-status', { hasText: 'Opened the published' }).waitFor();
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    const reason = await errorBeside(page, 'page-title');
    // The API's own sentence (its 400 invalidParams), not one the console made up.
    const refused = await apiCall('/content/static-pages/sobre-nosotros', {
      method: 'PUT',
      body: JSON.stringify({ language: 'es', title: '', content: 'x', published: true }),
    });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { invalidParams: { name: string; reason: string }[] };
    expect(reason).toBe(body.invalidParams.find((entry) => entry.name === 'title')!.reason);
    expect(await page.locator('#page-editor-status').textContent()).toContain(
      'Not saved: the service refused it (400)',
    );
    // Focus went to the field; the title is unchanged for readers.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    const read = await fetch(`${origin}/content/static-pages/sobre-nosotros?language=es`);
    expect(((await read.json()) as { title: string }).title).toBe(SPANISH.title);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-pages-error.png'), fullPage: true });
    // Fixed and saved: the error goes.
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill(SPANISH.title);
    await page
      .getByRole('textbox', { name: 'Accounting (a JSON object)', exact: true })
      .fill('[1, 2]');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await errorBeside(page, 'page-accounting')).toBe('Not a JSON object ({…}).');
    expect(await page.locator('#page-title-error').isHidden()).toBe(true);
    await page
      .getByRole('textbox', { name: 'Accounting (a JSON object)', exact: true })
      .fill('{"costCentre": "web"}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#page-editor-status', { hasText: 'Saved sobre-nosotros in es' }).waitFor();
    expect(await page.locator('#page-accounting-error').isHidden()).toBe(true);
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  test('a save over a change made since opening is refused by the API (412), the other change kept, and reloaded', async () => {
    const { page, problems, elsewhere } = await openConsole(1280, 'pages');
    const writes = watchWrites(page, '/content/static-pages/');
    await page.getByRole('button', { name: 'Edit sobre-nosotros (es)' }).click();
    await page.locator('#page-editor-status', { hasText: 'Opened the published' }).waitFor();
    const openedTag = (
      await fetch(`${origin}/content/static-pages/sobre-nosotros?language=es`)
    ).headers.get('etag');
    // Someone else replaces the page meanwhile.
    const theirs = await apiCall('/content/static-pages/sobre-nosotros', {
      method: 'PUT',
      body: JSON.stringify({
        language: 'es',
        title: 'Su versión',
        content: 'Otro texto',
        published: true,
      }),
    });
    expect(theirs.status).toBe(200);
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Mi versión');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#page-conflict', { hasText: 'Changed since you opened it' }).waitFor();
    // One PUT with the tag it opened, refused by the API itself (no read-then-write race).
    expect(writes).toEqual([{ method: 'PUT', ifMatch: openedTag, status: 412 }]);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-reload');
    const kept = await fetch(`${origin}/content/static-pages/sobre-nosotros?language=es`);
    expect(((await kept.json()) as { title: string }).title).toBe('Su versión');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: join(screenshots, 'console-pages-conflict.png'),
      fullPage: true,
    });
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.locator('#page-editor-status', { hasText: 'Opened the published' }).waitFor();
    expect(await page.locator('#page-conflict').isHidden()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Title', exact: true }).inputValue()).toBe(
      'Su versión',
    );
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  test('unpublished: GET falls back to English; the English version deleted', async () => {
    const { page, problems, elsewhere } = await openConsole(1280, 'pages');
    await page.getByRole('button', { name: 'Edit sobre-nosotros (es)' }).click();
    await page.locator('#page-editor-status', { hasText: 'Opened the published' }).waitFor();
    await page.getByRole('button', { name: 'Unpublish' }).click();
    await page
      .locator('#page-editor-status', { hasText: 'Saved sobre-nosotros in es, not published.' })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Publish' }).isVisible()).toBe(true);
    // The draft stays in the console's list, marked, and opens with its stored text.
    const draftRow = page.locator('#pages-table tbody tr', { hasText: 'sobre-nosotros' }).filter({
      hasText: 'Draft',
    });
    await draftRow.waitFor();
    expect(await draftRow.locator('td').allTextContents()).toEqual([
      'sobre-nosotros',
      'es',
      '—',
      'Draft',
      'Edit',
    ]);
    await page.locator('#pages-status', { hasText: '2 pages, 1 not published.' }).waitFor();
    await page.getByRole('button', { name: 'Edit sobre-nosotros (es)' }).click();
    await page
      .locator('#page-editor-status', {
        hasText: 'Opened the unpublished (draft) sobre-nosotros in es.',
      })
      .waitFor();
    expect(await page.getByRole('textbox', { name: 'Title', exact: true }).inputValue()).toBe(
      'Su versión',
    );
    expect(await page.getByRole('checkbox', { name: 'Published' }).isChecked()).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    // The public list and read still show nothing of it.
    const publicList = (await (await fetch(`${origin}/content/static-pages/`)).json()) as {
      locale: string;
    }[];
    expect(publicList.map(({ locale }) => locale)).toEqual(['en']);
    const fallback = await fetch(`${origin}/content/static-pages/sobre-nosotros`, {
      headers: { 'accept-language': 'es' },
    });
    expect(fallback.headers.get('content-language')).toBe('en');
    await page.getByRole('button', { name: 'Edit sobre-nosotros (en)' }).click();
    await page.locator('#page-editor-title', { hasText: 'sobre-nosotros (en)' }).waitFor();
    await page.getByRole('checkbox', { name: 'Yes, delete this language version' }).check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.locator('#pages-status', { hasText: 'Deleted sobre-nosotros in en.' }).waitFor();
    expect((await fetch(`${origin}/content/static-pages/sobre-nosotros`)).status).toBe(404);
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  test('a neighbourhood created and renamed; a plan created, refused with a 422 beside its slug, edited and deleted', async () => {
    const { page, problems, elsewhere } = await openConsole(1280, 'neighbourhoods');
    await page.locator('#neighbourhoods-status', { hasText: 'neighbourhood' }).waitFor();
    // Nothing typed in the name: the API's refusal beside it.
    await page.locator('#neighbourhood-id').fill('malasana');
    await page.locator('#neighbourhood-city').selectOption('madrid');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await errorBeside(page, 'neighbourhood-name')).not.toBe('');
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('#neighbourhood-name').fill('Malasaña');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#neighbourhood-form-status', { hasText: 'Saved malasana' }).waitFor();
    await page.locator('#neighbourhoods-table tbody tr', { hasText: 'Malasaña' }).waitFor();
    await page.getByRole('button', { name: 'Edit Malasaña' }).click();
    await focusOn(page, 'neighbourhood-name');
    await page.locator('#neighbourhood-name').fill('Malasaña (Universidad)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#neighbourhood-form-status', { hasText: 'Saved malasana' }).waitFor();
    const catalogue = await apiCall('/listings/neighbourhoods?cityId=madrid');
    expect(await catalogue.json()).toEqual({
      neighbourhoods: [{ id: 'malasana', cityId: 'madrid', name: 'Malasaña (Universidad)' }],
    });
    // Renamed through the API while open here: the console's save is refused, theirs kept.
    await page.getByRole('button', { name: 'Edit Malasaña (Universidad)' }).click();
    await focusOn(page, 'neighbourhood-name');
    const renamed = await apiCall('/listings/neighbourhoods/malasana', {
      method: 'PUT',
      body: JSON.stringify({ cityId: 'madrid', name: 'Maravillas' }),
    });
    expect(renamed.status).toBe(204);
    await page.locator('#neighbourhood-name').fill('Malasaña centro');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('#neighbourhood-conflict', { hasText: 'Changed since you opened it' })
      .waitFor();
    const kept = (await (await apiCall('/listings/neighbourhoods?cityId=madrid')).json()) as {
      neighbourhoods: { name: string }[];
    };
    expect(kept.neighbourhoods.map(({ name }) => name)).toEqual(['Maravillas']);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.locator('#neighbourhood-form-status', { hasText: 'Reloaded malasana' }).waitFor();
    expect(await page.locator('#neighbourhood-name').inputValue()).toBe('Maravillas');
    expect(await page.locator('#neighbourhood-conflict').isHidden()).toBe(true);
    // A new entry under an id that exists is not written over.
    await page.getByRole('button', { name: 'New' }).click();
    await page.locator('#neighbourhood-id').fill('malasana');
    await page.locator('#neighbourhood-name').fill('Otra');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await errorBeside(page, 'neighbourhood-id')).toContain('edit it instead');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: join(screenshots, 'console-neighbourhoods.png'),
      fullPage: true,
    });

    await page.getByRole('link', { name: 'Plans', exact: true }).click();
    await page.locator('#plans-status', { hasText: 'stored plan' }).waitFor();
    await page.locator('#plan-name').fill('Pro');
    await page.locator('#plan-slug').fill('Pro Plan');
    await page.getByRole('textbox', { name: 'Per hour', exact: true }).fill('5000');
    await page.getByRole('button', { name: 'Save' }).click();
    const slugError = await errorBeside(page, 'plan-slug');
    const refused = await apiCall('/api/v1/admin/plans', {
      method: 'POST',
      body: JSON.stringify({ name: 'Pro', slug: 'Pro Plan', limits: { hour: 5000 } }),
    });
    expect(refused.status).toBe(422);
    const errors = ((await refused.json()) as { errors: Record<string, string[]> }).errors;
    expect(slugError).toBe(errors.slug!.join(' '));
    expect(await page.locator('#plan-form-status').textContent()).toContain(
      'Not saved: the service refused it (422)',
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('#plan-slug').fill('pro');
    // Two submits in a row (a double click) send one request, not two (the second would be refused: slug taken).
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/admin/plans'))
        posts.push(request.url());
    });
    await page.evaluate(() => {
      const form = document.getElementById('plan-editor') as HTMLFormElement;
      form.requestSubmit();
      form.requestSubmit();
    });
    await page.locator('#plan-form-status', { hasText: 'Created plan Pro' }).waitFor();
    expect(posts).toHaveLength(1);
    const planWrites = watchWrites(page, '/api/v1/admin/plans/');
    // Someone renames it meanwhile: the console's save is refused, theirs kept, and reloaded.
    const planId = (
      (await (await apiCall('/api/v1/admin/plans')).json()) as { data: { id: number }[] }
    ).data[0]!.id;
    const theirs = await apiCall(`/api/v1/admin/plans/${planId}`, {
      method: 'PUT',
      body: JSON.stringify({ name: 'Pro 2026', slug: 'pro', limits: { hour: 5000 } }),
    });
    expect(theirs.status).toBe(200);
    await page.getByRole('textbox', { name: 'Per minute', exact: true }).fill('300');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#plan-conflict', { hasText: 'Changed since you opened it' }).waitFor();
    // Saved once here, the plan is saved again with the tag POST answered: the API refuses it.
    expect(planWrites).toHaveLength(1);
    expect(planWrites[0]).toMatchObject({ method: 'PUT', status: 412 });
    expect(planWrites[0]!.ifMatch).toMatch(/^"/);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.locator('#plan-form-status', { hasText: `Reloaded plan ${planId}` }).waitFor();
    expect(await page.locator('#plan-name').inputValue()).toBe('Pro 2026');
    await page.locator('#plan-name').fill('Pro');
    await page.getByRole('textbox', { name: 'Per minute', exact: true }).fill('300');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#plan-form-status', { hasText: 'Saved plan Pro' }).waitFor();
    await page
      .locator('#plans-table tbody tr', { hasText: '300 per minute, 5000 per hour' })
      .waitFor();
    const plans = (await (await apiCall('/api/v1/admin/plans')).json()) as {
      data: { name: string; slug: string; limits: object }[];
    };
    expect(plans.data.map(({ name, slug, limits }) => ({ name, slug, limits }))).toEqual([
      { name: 'Pro', slug: 'pro', limits: { minute: 300, hour: 5000 } },
    ]);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-plans.png'), fullPage: true });
    await page
      .getByRole('checkbox', { name: 'Yes, delete this plan (its customers return to Standard)' })
      .check();
    await page.getByRole('button', { name: 'Delete plan' }).click();
    await page.locator('#plan-form-status', { hasText: 'Deleted plan Pro' }).waitFor();
    expect(await (await apiCall('/api/v1/admin/plans')).json()).toEqual({ data: [] });
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  test("two browsers: the second saves a neighbourhood and a plan after the first opened them; the first's saves are refused (412 on the tag its read served), the second's kept", async () => {
    const created = await apiCall('/api/v1/admin/plans', {
      method: 'POST',
      body: JSON.stringify({ name: 'Team', slug: 'team', limits: { day: 100 } }),
    });
    expect(created.status).toBe(201);
    const planId = ((await created.json()) as { id: number }).id;
    const first = await openConsole(1280, 'neighbourhoods');
    const second = await openConsole(1280, 'neighbourhoods');
    for (const { page } of [first, second]) {
      await page.getByRole('button', { name: 'Edit Maravillas', exact: true }).click();
      await focusOn(page, 'neighbourhood-name');
    }
    // The tag both read when they opened it (nothing changed it since).
    const neighbourhoodTag = (await apiCall('/listings/neighbourhoods/malasana')).headers.get(
      'etag',
    );
    const firstWrites = watchWrites(first.page, '/listings/neighbourhoods/');
    await second.page.locator('#neighbourhood-name').fill('Maravillas (second)');
    await second.page.getByRole('button', { name: 'Save' }).click();
    await second.page
      .locator('#neighbourhood-form-status', { hasText: 'Saved malasana' })
      .waitFor();
    await first.page.locator('#neighbourhood-name').fill('Maravillas (first)');
    await first.page.getByRole('button', { name: 'Save' }).click();
    await first.page
      .locator('#neighbourhood-conflict', { hasText: 'Changed since you opened it' })
      .waitFor();
    // One PUT, with the tag the first browser's read served, refused by the API itself.
    expect(firstWrites).toEqual([{ method: 'PUT', ifMatch: neighbourhoodTag, status: 412 }]);
    expect(await (await apiCall('/listings/neighbourhoods/malasana')).json()).toEqual({
      id: 'malasana',
      cityId: 'madrid',
      name: 'Maravillas (second)',
    });
    await first.page.getByRole('button', { name: 'Reload' }).click();
    await first.page
      .locator('#neighbourhood-form-status', { hasText: 'Reloaded malasana' })
      .waitFor();
    expect(await first.page.locator('#neighbourhood-name').inputValue()).toBe(
      'Maravillas (second)',
    );

    for (const { page } of [first, second]) {
      await page.getByRole('link', { name: 'Plans', exact: true }).click();
      await page.getByRole('button', { name: 'Edit Team', exact: true }).click();
      await focusOn(page, 'plan-name');
    }
    const planTag = (await apiCall(`/api/v1/admin/plans/${planId}`)).headers.get('etag');
    const firstPlanWrites = watchWrites(first.page, '/api/v1/admin/plans/');
    await second.page.getByRole('textbox', { name: 'Per day', exact: true }).fill('200');
    await second.page.getByRole('button', { name: 'Save' }).click();
    await second.page.locator('#plan-form-status', { hasText: 'Saved plan Team' }).waitFor();
    await first.page.locator('#plan-name').fill('Team (first)');
    await first.page.getByRole('button', { name: 'Save' }).click();
    await first.page
      .locator('#plan-conflict', { hasText: 'Changed since you opened it' })
      .waitFor();
    expect(firstPlanWrites).toEqual([{ method: 'PUT', ifMatch: planTag, status: 412 }]);
    expect(await (await apiCall(`/api/v1/admin/plans/${planId}`)).json()).toEqual({
      id: planId,
      name: 'Team',
      slug: 'team',
      limits: { day: 200 },
    });
    expect(await axeViolations(first.page)).toEqual([]);
    await first.page.getByRole('button', { name: 'Reload' }).click();
    await first.page.locator('#plan-form-status', { hasText: `Reloaded plan ${planId}` }).waitFor();
    expect(
      await first.page.getByRole('textbox', { name: 'Per day', exact: true }).inputValue(),
    ).toBe('200');
    expect((await apiCall(`/api/v1/admin/plans/${planId}`, { method: 'DELETE' })).status).toBe(204);
    for (const { problems, elsewhere } of [first, second]) {
      expect(elsewhere).toEqual([]);
      expect(unexpected(problems)).toEqual([]);
    }
  }, 60_000);

  test('from the keyboard at 360 px: a page opened and saved; nothing wider than the screen, axe finds nothing', async () => {
    const created = await apiCall('/content/static-pages/ayuda', {
      method: 'PUT',
      body: JSON.stringify({
        language: 'es',
        title: 'Ayuda',
        content: 'Escríbanos.',
        published: true,
      }),
    });
    expect(created.status).toBe(201);
    const { page, problems, elsewhere } = await openConsole(360, 'overview');
    /** Tabs forward until `matches` holds for the focused element (at most 60 presses). */
    async function tabTo(description: string, matches: () => boolean) {
      for (let presses = 0; presses < 60; presses++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(matches)) return;
      }
      throw new Error(`${description} was not reached with Tab`);
    }
    await tabTo(
      'the Static pages link',
      () => document.activeElement?.textContent === 'Static pages',
    );
    await page.keyboard.press('Enter');
    // ayuda, and the Spanish sobre-nosotros unpublished by an earlier test.
    await page.locator('#pages-status', { hasText: '2 pages, 1 not published.' }).waitFor();
    await tabTo(
      'Edit ayuda',
      () => document.activeElement?.getAttribute('aria-label') === 'Edit ayuda (es)',
    );
    await page.keyboard.press('Enter');
    await page.locator('#page-editor-status', { hasText: 'Opened the published ayuda' }).waitFor();
    // Opening puts the keyboard in the title.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    await page.keyboard.press('End');
    await page.keyboard.type(' y preguntas');
    await tabTo('Save', () => document.activeElement?.textContent === 'Save');
    await page.keyboard.press('Enter');
    await page.locator('#page-editor-status', { hasText: 'Saved ayuda in es' }).waitFor();
    const read = await fetch(`${origin}/content/static-pages/ayuda`, {
      headers: { 'accept-language': 'es' },
    });
    expect(((await read.json()) as { title: string }).title).toBe('Ayuda y preguntas');
    // The focused control shows a visible outline.
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement!).outlineStyle,
    );
    expect(outline).not.toBe('none');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'console-pages-360.png'), fullPage: true });
    for (const [tab, loaded] of [
      ['Neighbourhoods', '#neighbourhoods-status'],
      ['Plans', '#plans-status'],
    ] as const) {
      await page.getByRole('link', { name: tab, exact: true }).click();
      await page.locator(loaded).filter({ hasText: /\S/ }).first().waitFor();
      expect([tab, await overflow(page)]).toEqual([tab, 0]);
      expect([tab, await axeViolations(page)]).toEqual([tab, []]);
    }
    expect(elsewhere).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);
});
