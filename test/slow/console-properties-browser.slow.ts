/**
 * The console's Properties page and /account's "My properties" in Debian's
 * headless Chromium (playwright-core), on 1,000 seeded properties and a
 * customer's own three: the list filtered by city, type, address, state
 * and owner and paged through by the API's keyset cursor, forwards and
 * back, every row once; a property's location edited and read back by GET;
 * two browser pages editing the same property, the second save refused
 * ("Changed since you opened it") with the first one's change kept; a unit
 * added, published and deleted with the counters moving on the page and in
 * GET; every other action of the API read back by GET; a create the API
 * answers 422 and a PUT it answers 400 shown beside their fields; a customer seeing
 * only its own properties and no owner control; axe-core WCAG 2.1 AA clean
 * in the empty, loaded, error and conflict states, at 1280 px and 360 px
 * (no sideways scrolling), with no request leaving the origin. Leaves
 * docs/screenshots/console-properties*.png and account-properties.png.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import type { BulkPropertyInput } from '@/listings/properties/bulk';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { freePort, startServer } from '../accounts/server-process';
import { propertyBody } from '../listings/support';
import { axeViolations, watchPage } from './axe';
import {
  chromiumPresent,
  userCreate as createUser,
  launchChromium,
  signIn as signInAs,
} from './browser-page';

const root = join(import.meta.dir, '..', '..');
const screenshots = join(root, 'docs', 'screenshots');
const present = chromiumPresent('console properties browser test');
const PASSWORD = 'a long enough password';
const CITIES = ['madrid', 'barcelona', 'london', 'paris'] as const;
const CITY_NAMES = { madrid: 'Madrid', barcelona: 'Barcelona', london: 'London', paris: 'Paris' };
const TYPES = ['apartment', 'studio', 'roomShared', 'residence'] as const;
const SEEDED = 1000;

/** Property `i` of the seed: cities in turn, types in runs of four, every tenth archived. */
function seedOf(i: number): BulkPropertyInput {
  const cityId = CITIES[i % 4]!;
  return {
    type: TYPES[Math.floor(i / 4) % 4]!,
    ownerId: i < 500 ? 'owner-a' : 'owner-b',
    source: 'outbound',
    archived: i % 10 === 0,
    totalUnits: 1 + (i % 3),
    location: {
      addressLine1: `Seed street ${i}`,
      city: CITY_NAMES[cityId],
      cityId,
      postalCode: String(10000 + i),
      latitude: 40,
      longitude: -3,
    },
  };
}

describe.skipIf(!present)('Properties in the console and on /account, in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-properties-'));
  const port = freePort();
  const origin = `http://localhost:${port}`;
  const env = {
    DATABASE_PATH: join(dir, 'app.db'),
    PUBLIC_ORIGIN: origin,
    PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '60',
  };
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;
  let employeeToken = '';
  let customerId = '';
  const customerProperties: string[] = [];
  let actionsProperty = '';

  const userCreate = (email: string, role: string) => createUser(env, email, role, PASSWORD);
  const signIn = (email: string) => signInAs(origin, email, PASSWORD);

  /** What GET answers the employee at `path` (under /listings/properties). */
  async function get(path: string) {
    const res = await fetch(`${origin}/listings/properties/${path}`, {
      headers: { authorization: `Bearer ${employeeToken}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as unknown;
  }

  /** The property as GET answers it to the employee. */
  async function read(id: string) {
    return (await get(id)) as {
      type: string;
      ownerId: string;
      archived: boolean;
      location: { addressLine1: string; neighbourhoodId: string | null };
      yearOfConstruction?: number;
      totalUnits: number;
      rentableUnits: number;
      publishedUnits: number;
      published: boolean;
    };
  }

  beforeAll(async () => {
    const db = openDatabase(env.DATABASE_PATH);
    migrateDatabase(db);
    insertPropertiesBulk(
      db,
      Array.from({ length: SEEDED }, (_, i) => seedOf(i)),
    );
    db.$client.close();
    await userCreate('ops@example.com', 'employee');
    await userCreate('owner@example.com', 'customer');
    server = await startServer(port, env);
    employeeToken = (await signIn('ops@example.com')).accessToken;
    customerId = (await signIn('owner@example.com')).user.id;
    for (const street of ['Own street 1', 'Own street 2', 'Own street 3']) {
      const res = await fetch(`${origin}/listings/properties`, {
        method: 'POST',
        headers: { authorization: `Bearer ${employeeToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(
          propertyBody({
            ownerId: customerId,
            location: { ...propertyBody().location, addressLine1: street },
          }),
        ),
      });
      expect(res.status).toBe(201);
      customerProperties.push(res.headers.get('location')!.split('/').pop()!);
    }
    const other = await fetch(`${origin}/listings/properties`, {
      method: 'POST',
      headers: { authorization: `Bearer ${employeeToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(propertyBody({ ownerId: 'owner-c' })),
    });
    actionsProperty = other.headers.get('location')!.split('/').pop()!;
    const centro = await fetch(`${origin}/listings/neighbourhoods/centro`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${employeeToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cityId: 'madrid', name: 'Centro' }),
    });
    expect(centro.status).toBe(204);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  async function openPage(width: number, email: string) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const res = await context.request.post(`${origin}/auth/sign-in`, {
      data: { email, password: PASSWORD },
      headers: { origin },
    });
    expect(res.status()).toBe(200);
    const page = await context.newPage();
    const watched = await watchPage(page, origin);
    // Chromium logs every answer >= 400 as an error; these are the API's, and expected here:
    // 400 and 422 (bad input), 404 (no additional data yet, another owner's property), 409 (the
    // last unit's delete), 412 (a conflict).
    const expected =
      /Failed to load resource: the server responded with a status of (400|404|409|412|422)/;
    const problems = () => watched.problems.filter((problem) => !expected.test(problem));
    return { page, problems, elsewhere: watched.elsewhere };
  }

  const filters = (page: Page) => page.getByRole('form', { name: 'Filter the properties' });
  const listStatus = (page: Page, text: string | RegExp) =>
    page.locator('.list-status', { hasText: text }).waitFor();
  const rowLinks = (page: Page) =>
    page
      .locator('table.records tbody a')
      .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).hash));
  /** The message a field is marked invalid with and described by (its aria-describedby). */
  async function messageBeside(control: Locator) {
    expect(await control.getAttribute('aria-invalid')).toBe('true');
    const id = await control.getAttribute('aria-describedby');
    return control.page().locator(`#${id}`).textContent();
  }
  /** The page is no wider than its window: nothing to scroll sideways at 360 px. */
  const fitsWidth = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  test('an employee filters 1,000 properties and pages through them by keyset, forwards and back', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    await page.goto(`${origin}/console#properties`);
    await listStatus(page, `Properties 1–30 of ${SEEDED + 4}.`);
    expect(await page.locator('table.records tbody tr').count()).toBe(30);
    expect(await axeViolations(page)).toEqual([]);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'console-properties.png'), fullPage: true });

    // London (every fourth of the seed): 250, in pages of 100, each row once.
    await filters(page).getByLabel('City').selectOption('london');
    await filters(page).getByLabel('Per page').selectOption('100');
    await filters(page).getByRole('button', { name: 'Filter' }).click();
    await listStatus(page, 'Properties 1–100 of 250.');
    const seen = new Set(await rowLinks(page));
    const next = page.getByRole('button', { name: 'Next page' });
    const previous = page.getByRole('button', { name: 'Previous page' });
    await next.click();
    await listStatus(page, 'Properties 101–200 of 250.');
    for (const link of await rowLinks(page)) seen.add(link);
    await next.click();
    await listStatus(page, 'Properties 201–250 of 250.');
    for (const link of await rowLinks(page)) seen.add(link);
    expect(seen.size).toBe(250);
    expect(await next.isDisabled()).toBe(true);
    await previous.click();
    await listStatus(page, 'Properties 101–200 of 250.');
    expect(await page.locator('table.records tbody tr').first().textContent()).toContain('London');

    // London studios: i = 4k + 2 with k = 1, 5, … 249, sorted by total units, most first.
    await filters(page).getByLabel('Type').selectOption('studio');
    await filters(page).getByLabel('Sort by').selectOption('-totalUnits');
    await filters(page).getByRole('button', { name: 'Filter' }).click();
    await listStatus(page, 'Properties 1–63 of 63.');
    const units = await page
      .locator('table.records tbody td[data-label="Units"]')
      .evaluateAll((cells) => cells.map((cell) => Number(cell.textContent?.split(' / ')[0])));
    expect(units).toEqual([...units].sort((a, b) => b - a));
    expect(units[0]).toBe(3);

    // The filters are in the address: a bookmark shows the same list, and Back the one before.
    const bookmark = page.url();
    expect(new URL(bookmark).hash).toBe(
      '#properties?cityIds=london&type=studio&sort=-totalUnits&itemsPerPage=100',
    );
    const other = await page.context().newPage();
    await other.goto(bookmark);
    await listStatus(other, 'Properties 1–63 of 63.');
    expect(await filters(other).getByLabel('Sort by').inputValue()).toBe('-totalUnits');
    expect(await filters(other).getByLabel('Per page').inputValue()).toBe('100');
    await other.close();
    await page.goBack();
    await listStatus(page, 'Properties 1–100 of 250.');
    expect(await filters(page).getByLabel('Type').inputValue()).toBe('');
    await page.goForward();
    await listStatus(page, 'Properties 1–63 of 63.');
    // A property opened from the filtered list: Back to the list keeps the filters.
    await page.locator('table.records tbody a').first().click();
    await page.getByRole('link', { name: 'Back to the list' }).first().click();
    await listStatus(page, 'Properties 1–63 of 63.');
    expect(page.url()).toBe(bookmark);

    // An address search (99, 990…999) among the archived ones (every tenth: 990 only).
    await filters(page).getByLabel('City').selectOption('');
    await filters(page).getByLabel('Type').selectOption('');
    await filters(page).getByLabel('Address contains').fill('seed STREET 99');
    await filters(page).getByRole('button', { name: 'Filter' }).click();
    await listStatus(page, 'Properties 1–11 of 11.');
    await filters(page).getByLabel('Archived').selectOption('true');
    await filters(page).getByRole('button', { name: 'Filter' }).click();
    await listStatus(page, 'Properties 1–1 of 1.');
    expect(await page.locator('table.records tbody').textContent()).toContain('Seed street 990');

    // By owner, and nothing changed since a minute from now: the empty state.
    await filters(page).getByLabel('Address contains').fill('');
    await filters(page).getByLabel('Archived').selectOption('');
    await filters(page).getByLabel('Owner id').fill(customerId);
    await filters(page).getByRole('button', { name: 'Filter' }).click();
    await listStatus(page, 'Properties 1–3 of 3.');
    const later = new Date(Date.now() + 60_000);
    const local = new Date(later.getTime() - later.getTimezoneOffset() * 60_000)
      .toISOString()
      .slice(0, 16);
    await filters(page).getByLabel('Updated since (local time)').fill(local);
    await filters(page).getByRole('button', { name: 'Filter' }).click();
    await listStatus(page, 'No property matches (0 in all).');
    expect(await page.locator('table.records tbody').textContent()).toContain(
      'No property matches.',
    );
    expect(await axeViolations(page)).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(problems()).toEqual([]);
  }, 120_000);

  test('a 422 from the API is shown beside its fields, and a valid create opens the new property', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    await page.goto(`${origin}/console#properties`);
    await listStatus(page, 'Properties 1–30');
    await page.getByText('Add a property', { exact: true }).click();
    const form = page.getByRole('form', { name: 'Add a property' });
    await form.getByLabel('Owner id').fill('owner-c');
    await form.getByLabel('Address line 1').fill('   ');
    await form.getByLabel('City name').fill('Madrid');
    await form.getByLabel('City id').selectOption('madrid');
    await form.getByLabel('Postal code').fill('28013');
    await form.getByLabel('Latitude').fill('100');
    await form.getByLabel('Longitude').fill('-3.7');
    await form.getByRole('button', { name: 'Add the property' }).click();
    const latitude = form.getByLabel('Latitude');
    await form.getByText('Not saved: see the messages beside the fields.').waitFor();
    expect(await messageBeside(latitude)).toBe(
      "The input is not between '-90' and '90', inclusively",
    );
    expect(await messageBeside(form.getByLabel('Address line 1'))).toContain(
      "Value is required and can't be empty",
    );
    // Beside the fields, not a banner: the status only points at them.
    expect(await form.locator('[role="status"]').textContent()).toBe(
      'Not saved: see the messages beside the fields.',
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: join(screenshots, 'console-properties-422.png'),
      fullPage: true,
    });

    await form.getByLabel('Address line 1').fill('New street 7');
    await latitude.fill('40.4');
    await form.getByRole('button', { name: 'Add the property' }).click();
    await page.waitForURL(/#properties\/[\w-]+$/);
    await page.getByRole('heading', { name: 'Property: New street 7, Madrid' }).waitFor();
    expect(elsewhere).toEqual([]);
    expect(problems()).toEqual([]);
  }, 60_000);

  test('an edit is in GET; of two pages saving the same property the second is refused, the first kept', async () => {
    const id = customerProperties[0]!;
    const first = await openPage(1280, 'ops@example.com');
    const second = await openPage(1280, 'ops@example.com');
    for (const { page } of [first, second]) {
      await page.goto(`${origin}/console#properties/${id}`);
      await page.getByRole('heading', { name: 'Property: Own street 1, Madrid' }).waitFor();
    }
    expect(await axeViolations(first.page)).toEqual([]);
    await first.page.screenshot({
      path: join(screenshots, 'console-property.png'),
      fullPage: true,
    });

    const location = (page: Page) => page.getByRole('form', { name: 'Location' });
    await location(first.page).getByLabel('Address line 1').fill('First street 1');
    await location(first.page).getByRole('button', { name: 'Save the location' }).click();
    await location(first.page).getByText('Location saved.').waitFor();
    expect((await read(id)).location.addressLine1).toBe('First street 1');
    await first.page.getByRole('heading', { name: 'Property: First street 1, Madrid' }).waitFor();

    // The second page read the property before that save: its ETag is stale.
    const information = second.page.getByRole('form', { name: 'Information' });
    await information.getByLabel('Year of construction (optional)').fill('1999');
    await information.getByRole('button', { name: 'Save the information' }).click();
    await information.getByText('Changed since you opened it').waitFor();
    const after = await read(id);
    expect(after.location.addressLine1).toBe('First street 1');
    expect(after.yearOfConstruction).toBeUndefined();
    // What was typed is kept to be made again.
    expect(await information.getByLabel('Year of construction (optional)').inputValue()).toBe(
      '1999',
    );
    expect(await axeViolations(second.page)).toEqual([]);
    await second.page.screenshot({
      path: join(screenshots, 'console-property-conflict.png'),
      fullPage: true,
    });
    await information.getByRole('button', { name: 'Reload the property' }).click();
    await second.page.getByRole('heading', { name: 'Property: First street 1, Madrid' }).waitFor();
    await information.getByLabel('Year of construction (optional)').fill('1999');
    await information.getByRole('button', { name: 'Save the information' }).click();
    await information.getByText('Information saved.').waitFor();
    expect((await read(id)).yearOfConstruction).toBe(1999);
    for (const { problems, elsewhere } of [first, second]) {
      expect(elsewhere).toEqual([]);
      expect(problems()).toEqual([]);
    }
  }, 90_000);

  test('a unit added and published moves the counters on the page and in GET', async () => {
    const id = customerProperties[1]!;
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    await page.goto(`${origin}/console#properties/${id}`);
    const counters = page.locator('[data-counters]');
    await page.locator('[data-counters="1/1/0"]').waitFor();
    const adder = page.getByRole('form', { name: 'Add a unit' });
    await adder
      .getByLabel(/^Features/)
      .fill(
        '[{"applicability": "unit", "category": "comfort", "name": "balcony", "value": "yes"}]',
      );
    await adder.getByRole('button', { name: 'Add a unit' }).click();
    await adder.getByText('Unit added.').waitFor();
    await page.locator('[data-counters="2/2/0"]').waitFor();
    expect(await page.locator('table.units tbody tr').count()).toBe(2);

    await page.getByRole('button', { name: 'Edit Unit 2' }).click();
    const editor = page.getByRole('form', { name: 'Edit the unit' });
    await editor.getByLabel('Published').check();
    await editor.getByRole('button', { name: 'Save the unit' }).click();
    await editor.getByText('Unit saved.').waitFor();
    await page.locator('[data-counters="2/2/1"]').waitFor();
    expect(await counters.textContent()).toContain('Publishedyes');
    const property = await read(id);
    expect([property.totalUnits, property.rentableUnits, property.publishedUnits]).toEqual([
      2, 2, 1,
    ]);
    expect(property.published).toBe(true);

    // A features list that is not JSON is refused beside its field, nothing sent.
    await page.getByRole('button', { name: 'Edit Unit 1' }).click();
    await editor.getByLabel(/^Features/).fill('[{');
    await editor.getByRole('button', { name: 'Save the unit' }).click();
    await editor.getByText('Not sent: see the message beside the field.').waitFor();
    expect(await editor.getByLabel(/^Features/).getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: join(screenshots, 'console-property-units.png'),
      fullPage: true,
    });

    // The unpublished unit deleted: one unit left, rentable and published.
    await page.getByRole('button', { name: 'Delete Unit 1' }).click();
    await page.locator('[data-counters="1/1/1"]').waitFor();
    // The counters and the table are read again side by side: the status says when both are.
    await page.getByText('Unit 1 deleted.').waitFor();
    expect(await page.locator('table.units tbody tr').count()).toBe(1);
    const left = await read(id);
    expect([left.totalUnits, left.rentableUnits, left.publishedUnits]).toEqual([1, 1, 1]);
    // The API refuses to delete the last unit (409): said, nothing changed.
    await page.getByRole('button', { name: 'Delete Unit 1' }).click();
    await page.getByText('Unit 1 was not deleted').waitFor();
    expect((await read(id)).totalUnits).toBe(1);
    expect(elsewhere).toEqual([]);
    expect(problems()).toEqual([]);
  }, 60_000);

  test("every other action of the API from the property's page, each read back by GET", async () => {
    const id = actionsProperty;
    const { page, problems, elsewhere } = await openPage(1280, 'ops@example.com');
    await page.goto(`${origin}/console#properties/${id}`);
    await page.getByRole('heading', { name: 'Property: Calle Mayor 5, Madrid' }).waitFor();
    const form = (name: string) => page.getByRole('form', { name, exact: true });

    // A 400 of a PUT names the body field: shown beside it, nothing written.
    await form('Location').getByLabel('Latitude').fill('100');
    await form('Location').getByRole('button', { name: 'Save the location' }).click();
    await form('Location').getByText('Not saved: see the messages beside the fields.').waitFor();
    expect(await messageBeside(form('Location').getByLabel('Latitude'))).toMatch(/90/);
    expect(await axeViolations(page)).toEqual([]);

    // The multi-listing counter: a value out of range refused beside it, then set.
    const counter = form('Multi-listing counter');
    expect(await counter.getByLabel('Units counter (0 to 10000)').inputValue()).toBe('1');
    await counter.getByLabel('Units counter (0 to 10000)').fill('10001');
    await counter.getByRole('button', { name: 'Save the counter' }).click();
    await counter.getByText('Not saved: see the messages beside the fields.').waitFor();
    expect(await messageBeside(counter.getByLabel('Units counter (0 to 10000)'))).toMatch(/10000/);
    await counter.getByLabel('Units counter (0 to 10000)').fill('12');
    await counter.getByRole('button', { name: 'Save the counter' }).click();
    await counter.getByText('Counter saved.').waitFor();
    const counterRead = await fetch(`${origin}/listings/multi-listing-units/${id}`, {
      headers: { authorization: `Bearer ${employeeToken}` },
    });
    expect(await counterRead.json()).toEqual({ id, unitsCounter: 12 });

    await form('Neighbourhood').getByLabel('Neighbourhood').selectOption('centro');
    await form('Neighbourhood').getByRole('button', { name: 'Save the neighbourhood' }).click();
    await form('Neighbourhood').getByText('Neighbourhood saved.').waitFor();
    expect((await read(id)).location.neighbourhoodId).toBe('centro');

    await form('Convert to another type').getByLabel('Type').selectOption('studio');
    await form('Convert to another type').getByRole('button', { name: 'Convert' }).click();
    await form('Convert to another type').getByText('Converted.').waitFor();
    expect((await read(id)).type).toBe('studio');

    await form('Owner').getByLabel('Owner id').fill('owner-d');
    await form('Owner').getByRole('button', { name: 'Save the owner' }).click();
    await form('Owner').getByText('Owner saved.').waitFor();
    expect((await read(id)).ownerId).toBe('owner-d');

    // Additional data: checked in the browser first, then stored as written.
    const data = form('Additional data (a JSON object)');
    const text = data.getByLabel('Additional data');
    await text.fill('{"floor": ');
    await data.getByRole('button', { name: 'Save the additional data' }).click();
    await data.getByText('Not sent: see the message beside the field.').waitFor();
    expect(await text.getAttribute('aria-invalid')).toBe('true');
    await text.fill('[1, 2]');
    await data.getByRole('button', { name: 'Save the additional data' }).click();
    await data.getByText('Must be a JSON object ({…}).').waitFor();
    await text.fill('{"floor": 3, "view": "patio ñ"}');
    await data.getByRole('button', { name: 'Save the additional data' }).click();
    await data.getByText('Additional data saved.').waitFor();
    expect(await get(`${id}/additional-data`)).toEqual({
      id,
      data: { floor: 3, view: 'patio ñ' },
    });

    await form('Archive').getByLabel('Reason (optional)', { exact: true }).fill('sold');
    await form('Archive').getByRole('button', { name: 'Archive the property' }).click();
    await form('Unarchive').getByText('Archived.').waitFor();
    expect((await read(id)).archived).toBe(true);
    expect(await form('Archive').isVisible()).toBe(false);
    await form('Unarchive').getByRole('button', { name: 'Unarchive the property' }).click();
    await form('Archive').getByText('Unarchived.').waitFor();
    expect((await read(id)).archived).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(problems()).toEqual([]);
  }, 90_000);

  test('at 360 px the list and a property read without sideways scrolling; axe finds nothing', async () => {
    const { page, problems, elsewhere } = await openPage(360, 'ops@example.com');
    await page.goto(`${origin}/console#properties`);
    await listStatus(page, 'Properties 1–30');
    expect(await fitsWidth(page)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    const opened = await page
      .locator('table.records tbody a')
      .first()
      .evaluate((link) => (link as HTMLAnchorElement).hash);
    await page.locator('table.records tbody a').first().click();
    await page.getByRole('heading', { name: /^Property: / }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    // Keyboard: the heading has the focus; the back link just before it is followed by Enter.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H2');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Back to the list');
    await page.keyboard.press('Enter');
    await listStatus(page, 'Properties 1–30');
    // Back on the list, the focus is on the row of the property left.
    await page.waitForFunction(
      (hash) => (document.activeElement as HTMLAnchorElement | null)?.hash === hash,
      opened,
    );
    expect(elsewhere).toEqual([]);
    expect(problems()).toEqual([]);
  }, 60_000);

  test('a customer sees only its own properties on /account, without owner controls', async () => {
    const { page, problems, elsewhere } = await openPage(1280, 'owner@example.com');
    await page.goto(`${origin}/account`);
    // Nothing is asked of the listings API until the card is opened.
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/\/listings\/properties|\/docs\/json/.test(request.url())) asked.push(request.url());
    });
    await page.getByText('Signed in as').waitFor();
    await page.locator('#passkey-list').waitFor({ state: 'attached' });
    expect(asked).toEqual([]);
    await page.getByText('My properties', { exact: true }).first().click();
    await listStatus(page, 'Properties 1–3 of 3.');
    const links = await rowLinks(page);
    expect(links.sort()).toEqual(customerProperties.map((id) => `#my-properties/${id}`).sort());
    expect(await filters(page).getByLabel('Owner id').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'account-properties.png'), fullPage: true });

    await page.locator('table.records tbody a', { hasText: 'Own street 3' }).click();
    await page.getByRole('heading', { name: 'Property: Own street 3, Madrid' }).waitFor();
    expect(await page.getByRole('form', { name: 'Owner', exact: true }).count()).toBe(0);
    // The multi-listing counter is shown, not offered to change (an employee's write).
    const counter = page.getByRole('form', { name: 'Multi-listing counter' });
    expect(await counter.getByRole('button', { name: 'Save the counter' }).count()).toBe(0);
    expect(await counter.getByLabel('Units counter (0 to 10000)').getAttribute('readonly')).toBe(
      '',
    );
    const information = page.getByRole('form', { name: 'Information' });
    await information.getByLabel('Year of construction (optional)').fill('1975');
    await information.getByRole('button', { name: 'Save the information' }).click();
    await information.getByText('Information saved.').waitFor();
    expect((await read(customerProperties[2]!)).yearOfConstruction).toBe(1975);

    // Another owner's property does not exist for it.
    const others = await fetch(`${origin}/listings/properties?ownerId=owner-a&itemsPerPage=1`, {
      headers: { authorization: `Bearer ${employeeToken}` },
    });
    const otherId = ((await others.json()) as { _embedded: { 'svc:properties': { id: string }[] } })
      ._embedded['svc:properties'][0]!.id;
    await page.goto(`${origin}/account#my-properties/${otherId}`);
    await page.getByText(`There is no property ${otherId} you may see.`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(problems()).toEqual([]);
  }, 60_000);
});
