/**
 * Properties in a browser, for the console (an employee: every property)
 * and for /account's "My properties" (a customer: the API limits the list
 * and every write to its own). `#<base>` shows the list with the
 * documented filters and sorts, paged by the API's keyset cursor, and
 * `#<base>?<filters>` the list filtered (what differs from the defaults,
 * as typed: a filtered list can be bookmarked, and Back returns to the
 * filters before); `#<base>/<id>` one property (property-page.ts). Everything goes through
 * the public listings API with the session cookie.
 */
import { ApiProblem, call, field, h, input, numberOrText, onSubmit, select } from './form';
import {
  LISTINGS,
  type PropertiesOptions,
  type Property,
  type PropertyKeysetPage,
  type Vocabulary,
  vocabularyOf,
} from './listings-api';
import { propertyPage } from './property-page';

export type { PropertiesOptions };

const time = (iso: string) => new Date(iso).toISOString().replace('T', ' ').slice(0, 16);

const stateOf = (property: Property) =>
  property.archived ? 'archived' : property.published ? 'published' : 'not published';

/** A table cell with the column's name for the narrow layout (data.css). */
function cellOf(row: HTMLTableRowElement, label: string, content: Node | string) {
  const cell = row.insertCell();
  cell.dataset.label = label;
  cell.append(content);
}

/** The list's filters as the API's query, keyset paging with a total. */
function queryOf(form: HTMLFormElement): URLSearchParams {
  const query = new URLSearchParams({ paging: 'keyset', total: 'true' });
  const value = (name: string) =>
    (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null)?.value.trim() ??
    '';
  for (const name of ['address', 'cityIds', 'type', 'ownerId', 'published', 'archived', 'sort']) {
    const given = value(name);
    if (given) query.set(name, given);
  }
  const since = value('updatedSince');
  // datetime-local is the browser's local time; the API wants an instant with a zone.
  if (since) query.set('updatedSince', new Date(since).toISOString());
  query.set('itemsPerPage', value('itemsPerPage') || '30');
  return query;
}

/** The list's fields kept in the hash. */
const HASHED = [
  'address',
  'cityIds',
  'type',
  'ownerId',
  'published',
  'archived',
  'updatedSince',
  'sort',
  'itemsPerPage',
] as const;

const controlOf = (form: HTMLFormElement, name: string) =>
  form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;

/** The hash's query (`#<base>` and `#<base>?…` alike); '' when it names no list. */
function listQueryOf(hash: string, base: string): string {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  return path === base ? query : '';
}

function listView(options: PropertiesOptions, words: Vocabulary) {
  const employee = options.customerId === undefined;
  // On /account the card's summary names the list already.
  const heading = employee ? [h(options.level ?? 'h2', {}, 'Properties')] : [];
  const sort = h('select');
  for (const name of words.sortFields) {
    const shown = name === '_id' ? 'id (creation order)' : name;
    sort.append(
      h('option', { value: name }, `${shown}, ascending`),
      h('option', { value: `-${name}` }, `${shown}, descending`),
    );
  }
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter the properties' },
    field('Address contains', input({ type: 'search' }), 'address'),
    field('City', select(words.cityIds, {}, 'any'), 'cityIds'),
    field('Type', select(words.types, {}, 'any'), 'type'),
    ...(employee ? [field('Owner id', input(), 'ownerId')] : []),
    field('Published', select(['true', 'false'], {}, 'either'), 'published'),
    field('Archived', select(['true', 'false'], {}, 'either'), 'archived'),
    field('Updated since (local time)', input({ type: 'datetime-local' }), 'updatedSince'),
    field('Sort by', sort, 'sort'),
    field('Per page', select(['10', '30', '100']), 'itemsPerPage'),
    h('button', { type: 'submit' }, 'Filter'),
  );
  (filters.elements.namedItem('itemsPerPage') as HTMLSelectElement).value = '30';
  /** Each hashed field's value when untouched: only the others go in the hash. */
  const defaults = new Map(HASHED.map((name) => [name, controlOf(filters, name)?.value ?? '']));
  /** The filters as the hash keeps them. */
  const hashQueryOf = () => {
    const query = new URLSearchParams();
    for (const name of HASHED) {
      const value = controlOf(filters, name)?.value.trim() ?? '';
      if (value !== defaults.get(name)) query.set(name, value);
    }
    return query.toString();
  };
  /** The filters a hash names (the defaults for the rest). */
  const fillFrom = (query: URLSearchParams) => {
    for (const name of HASHED) {
      const control = controlOf(filters, name);
      if (control) control.value = query.get(name) ?? defaults.get(name) ?? '';
    }
  };
  const status = h('p', { role: 'status', class: 'list-status' });
  const table = h(
    'table',
    { class: 'records' },
    h('caption', {}, employee ? 'Properties matching the filters' : 'Your properties'),
  );
  const columns = [
    'Address',
    'City',
    'Type',
    ...(employee ? ['Owner'] : []),
    'Units (total / rentable / published)',
    'State',
    'Updated (UTC)',
  ];
  table
    .createTHead()
    .append(h('tr', {}, ...columns.map((name) => h('th', { scope: 'col' }, name))));
  const body = table.createTBody();
  const previous = h('button', { type: 'button', disabled: true }, 'Previous page');
  const next = h('button', { type: 'button', disabled: true }, 'Next page');
  const pager = h('nav', { 'aria-label': 'Pages of properties', class: 'pager' }, previous, next);

  /** The hrefs of the pages walked so far (keyset pages have no way back of their own). */
  let walked: string[] = [];
  let at = 0;
  let firstRow = 0;
  let perPage = 30;

  async function load(href: string): Promise<void> {
    status.replaceChildren('Loading…');
    const { data } = await call<PropertyKeysetPage>('GET', href);
    const properties = data._embedded['svc:properties'];
    body.replaceChildren();
    for (const property of properties) {
      const row = body.insertRow();
      const { location } = property;
      const address = [location.addressLine1, location.addressLine2].filter(Boolean).join(', ');
      cellOf(row, 'Address', h('a', { href: `#${options.base}/${property.id}` }, address));
      cellOf(row, 'City', `${location.city} (${location.cityId})`);
      cellOf(row, 'Type', property.type);
      if (employee) cellOf(row, 'Owner', property.ownerId);
      cellOf(
        row,
        'Units',
        `${property.totalUnits} / ${property.rentableUnits} / ${property.publishedUnits}`,
      );
      cellOf(row, 'State', stateOf(property));
      cellOf(row, 'Updated', time(property.updatedAt));
    }
    if (properties.length === 0) {
      const cell = body.insertRow().insertCell();
      cell.colSpan = columns.length;
      cell.textContent = 'No property matches.';
    }
    const nextHref = data._links.next?.href;
    if (nextHref && at === walked.length - 1) walked.push(nextHref);
    next.disabled = !nextHref;
    previous.disabled = at === 0;
    const total = data.total ?? properties.length;
    status.replaceChildren(
      properties.length === 0
        ? `No property matches (${total} in all).`
        : `Properties ${firstRow + 1}–${firstRow + properties.length} of ${total}.`,
    );
  }

  const failed = (error: unknown) => {
    const problem = error instanceof ApiProblem ? error.problem : undefined;
    const reasons = problem?.invalidParams?.map(({ name, reason }) => `${name} ${reason}`);
    status.replaceChildren(
      `Could not list the properties: ${reasons?.join('; ') ?? problem?.detail ?? String(error)}`,
    );
  };

  /** The hash query of the search shown. */
  let searched: string | undefined;

  function search(): Promise<void> {
    const query = queryOf(filters);
    perPage = Number(query.get('itemsPerPage'));
    walked = [`${LISTINGS}/properties?${query}`];
    at = 0;
    firstRow = 0;
    return load(walked[0]!).catch(failed);
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = hashQueryOf();
    const wanted = `#${options.base}${query ? `?${query}` : ''}`;
    // A new hash is a history entry; its hashchange shows the list (`show`).
    if (location.hash !== wanted) location.hash = wanted;
    else {
      searched = query;
      void search();
    }
  });
  next.addEventListener('click', () => {
    const shown = body.querySelectorAll('a').length;
    at += 1;
    firstRow += shown;
    void load(walked[at]!).catch(failed);
  });
  previous.addEventListener('click', () => {
    at -= 1;
    walked.length = at + 2;
    firstRow = Math.max(0, firstRow - perPage);
    void load(walked[at]!).catch(failed);
  });

  const element = h(
    'div',
    { class: 'property-list' },
    ...heading,
    filters,
    status,
    table,
    pager,
    createForm(options, words),
  );
  /**
   * The list the hash query names: the page shown, read again (counters may
   * have moved) when it is the search shown, else that search from its start.
   */
  function showQuery(query: string): Promise<void> {
    if (query === searched && walked.length > 0) return load(walked[at]!).catch(failed);
    fillFrom(new URLSearchParams(query));
    searched = query;
    return search();
  }
  return { element, showQuery, words };
}

/** POST /listings/properties: the API's 422 messages appear beside their fields. */
function createForm(options: PropertiesOptions, words: Vocabulary): HTMLElement {
  const status = h('p', { role: 'status' });
  const form = h(
    'form',
    { class: 'record-form', 'aria-label': 'Add a property' },
    field('Type', select(words.types), 'type'),
    ...(options.customerId === undefined ? [field('Owner id', input(), 'ownerId')] : []),
    field('Address line 1', input(), 'location.addressLine1'),
    field('Address line 2 (optional)', input(), 'location.addressLine2'),
    field('City name', input(), 'location.city'),
    field('City id', select(words.cityIds), 'location.cityId'),
    field('Postal code', input(), 'location.postalCode'),
    field('Latitude', input({ inputmode: 'decimal' }), 'location.latitude'),
    field('Longitude', input({ inputmode: 'decimal' }), 'location.longitude'),
    field('Total units', input({ inputmode: 'numeric', value: '1' }), 'totalUnits'),
    h('button', { type: 'submit' }, 'Add the property'),
    status,
  );
  const value = (name: string) =>
    (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value.trim();
  const numberOf = (name: string) => numberOrText(value(name));
  onSubmit(form, status, async () => {
    const addressLine2 = value('location.addressLine2');
    const created = await call('POST', `${LISTINGS}/properties`, {
      body: {
        type: value('type'),
        ownerId: options.customerId ?? value('ownerId'),
        location: {
          addressLine1: value('location.addressLine1'),
          ...(addressLine2 ? { addressLine2 } : {}),
          city: value('location.city'),
          cityId: value('location.cityId'),
          postalCode: value('location.postalCode'),
          latitude: numberOf('location.latitude'),
          longitude: numberOf('location.longitude'),
        },
        totalUnits: numberOf('totalUnits'),
      },
    });
    const id = created.location?.split('/').pop();
    form.reset();
    if (id) location.hash = `#${options.base}/${id}`;
    return 'Added.';
  });
  return h('details', { class: 'add' }, h('summary', {}, 'Add a property'), form);
}

/**
 * The view in `root`: `show()` draws what the hash names (the list, kept
 * with its filters and page while a property is open, or one property).
 */
export function propertiesView(root: HTMLElement, options: PropertiesOptions) {
  /** Made once, on the first show (two shows in a row share it). */
  let made: Promise<ReturnType<typeof listView>> | undefined;
  const pageBox = h('div', { class: 'property-page' });
  const status = h('p', { role: 'status' });
  root.replaceChildren(status, pageBox);
  /** The property shown last, whose row takes the focus back on the list. */
  let opened: string | undefined;
  /** The list's hash as last shown, filters included. */
  let listHash = `#${options.base}`;

  async function show(): Promise<void> {
    made ??= vocabularyOf().then((words) => {
      const view = listView(options, words);
      root.insertBefore(view.element, pageBox);
      return view;
    });
    made.catch(() => {
      made = undefined;
    });
    const list = await made;
    // Any other hash (none on /account) shows the list.
    const [base, id] = location.hash.slice(1).split('/');
    status.replaceChildren();
    if (base === options.base && id) {
      list.element.hidden = true;
      pageBox.hidden = false;
      opened = id;
      // "Back to the list" returns to the list as filtered.
      const pageOptions = { ...options, words: list.words, listHash };
      await propertyPage(pageBox, decodeURIComponent(id), pageOptions);
      return;
    }
    listHash = location.hash.startsWith(`#${options.base}?`) ? location.hash : `#${options.base}`;
    pageBox.hidden = true;
    pageBox.replaceChildren();
    list.element.hidden = false;
    // Back from a property: the list as it was, read again (its counters may have moved),
    // the focus on the row of the property left.
    await list.showQuery(listQueryOf(location.hash, options.base));
    if (opened)
      list.element.querySelector<HTMLElement>(`a[href="#${options.base}/${opened}"]`)?.focus();
    opened = undefined;
  }
  return {
    show: () =>
      show().catch((error: unknown) => {
        status.replaceChildren(`Could not show the properties: ${String(error)}`);
      }),
  };
}
