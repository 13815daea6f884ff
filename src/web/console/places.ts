/**
 * The console's Neighbourhoods and Plans pages: the neighbourhood catalogue
 * (`/listings/neighbourhoods`: list, create, replace; the API deletes none)
 * and the customer API's stored plans (`/api/v1/admin/plans`: list, create,
 * replace, delete). An entry opened from its list is read alone
 * (`GET …/{id}`), which answers its ETag; every save sends the tag held as
 * If-Match (the one the read served, then the one the last save answered),
 * so a change someone made after it was opened is refused by the API with
 * 412, atomically, and nothing is written.
 */
import { byId, cell } from './dom';
import { describeFailure, FieldErrors, once, refused, send, showChanged } from './form';

/** A catalogue entry as GET /listings/neighbourhoods lists it. */
interface Neighbourhood {
  id: string;
  cityId: string;
  name: string;
}
/** A stored plan as GET /api/v1/admin/plans lists it. */
interface Plan {
  id: number;
  name: string;
  slug: string;
  limits: Partial<Record<(typeof WINDOWS)[number], number>>;
}
const WINDOWS = ['minute', 'hour', 'day', 'week', 'month'] as const;

const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value.trim();
const say = (id: string) => (line: string) => {
  byId(id).textContent = line;
};

function actionButton(label: string, name: string, action: () => void): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = label;
  button.setAttribute('aria-label', `${label} ${name}`);
  button.addEventListener('click', action);
  return button;
}

const reportTo = (show: (line: string) => void, what: string) => (error: unknown) =>
  show(`${what}: ${error instanceof Error ? error.message : String(error)}`);

// Neighbourhoods

let neighbourhoods: Neighbourhood[] = [];
/** The entry the form replaces, as it was read; null for a new one. */
let openedNeighbourhood: Neighbourhood | null = null;
/** The ETag of the opened entry: what its read served, then what the last save answered. */
let neighbourhoodTag: string | null = null;
let neighbourhoodErrors: FieldErrors | undefined;
const nStatus = say('neighbourhoods-status');
const nFormStatus = say('neighbourhood-form-status');
const nErrors = () =>
  (neighbourhoodErrors ??= new FieldErrors({
    id: byId('neighbourhood-id'),
    cityId: byId('neighbourhood-city'),
    name: byId('neighbourhood-name'),
  }));

/**
 * The accepted `cityId` values, as the API document declares them for
 * `GET /listings/neighbourhoods?cityId=` (read once, when the page opens).
 */
let cityIds: Promise<string[]> | undefined;
function readCityIds(): Promise<string[]> {
  cityIds ??= send<{
    paths: Record<
      string,
      { get?: { parameters?: { name: string; schema?: { enum?: string[] } }[] } }
    >;
  }>('/docs/json').then((answer) => {
    const parameters = answer.body.paths?.['/listings/neighbourhoods']?.get?.parameters ?? [];
    const cities = parameters.find((parameter) => parameter.name === 'cityId')?.schema?.enum;
    if (answer.status !== 200 || !cities) {
      cityIds = undefined;
      throw new Error(`the cities were not in /docs/json (${describeFailure(answer)})`);
    }
    return cities;
  });
  return cityIds;
}

/** Both city selects filled with the cities the API accepts, once. */
async function fillCities(): Promise<void> {
  const filter = byId<HTMLSelectElement>('neighbourhoods-city');
  if (filter.options.length > 1) return;
  const cities = await readCityIds();
  const city = byId<HTMLSelectElement>('neighbourhood-city');
  for (const id of cities) {
    filter.add(new Option(id, id));
    city.add(new Option(id, id));
  }
}

const neighbourhoodPath = (id: string) => `/listings/neighbourhoods/${encodeURIComponent(id)}`;

/** One entry with its ETag; a null body when there is none (404). */
async function readNeighbourhood(
  id: string,
): Promise<{ entry: Neighbourhood | null; etag: string | null }> {
  const answer = await send<Neighbourhood>(neighbourhoodPath(id));
  if (answer.status === 404) return { entry: null, etag: null };
  if (answer.status !== 200) throw new Error(describeFailure(answer));
  return { entry: answer.body, etag: answer.etag };
}

/** Opens the entry as it is now, with the tag its save sends; gone since listed → said and the list redrawn. */
async function editNeighbourhood(id: string): Promise<void> {
  const { entry, etag } = await readNeighbourhood(id);
  if (!entry) {
    nStatus(`${id} is gone since the list was read.`);
    return loadNeighbourhoods();
  }
  openNeighbourhood(entry, etag);
  byId('neighbourhood-name').focus();
}

async function readNeighbourhoods(cityId: string): Promise<Neighbourhood[]> {
  const query = cityId ? `?cityId=${encodeURIComponent(cityId)}` : '';
  const answer = await send<{ neighbourhoods: Neighbourhood[] }>(
    `/listings/neighbourhoods${query}`,
  );
  if (answer.status !== 200) throw new Error(describeFailure(answer));
  return answer.body.neighbourhoods;
}

function openNeighbourhood(entry: Neighbourhood | null, etag: string | null = null): void {
  openedNeighbourhood = entry;
  neighbourhoodTag = etag;
  nErrors().clear();
  byId('neighbourhood-conflict').hidden = true;
  const id = byId<HTMLInputElement>('neighbourhood-id');
  id.value = entry?.id ?? '';
  id.readOnly = entry !== null;
  const city = byId<HTMLSelectElement>('neighbourhood-city');
  city.value = entry?.cityId ?? (value('neighbourhoods-city') || city.options[0]?.value || '');
  byId<HTMLInputElement>('neighbourhood-name').value = entry?.name ?? '';
  byId('neighbourhood-form-title').textContent = entry
    ? `Edit neighbourhood ${entry.id}`
    : 'Add a neighbourhood';
  nFormStatus('');
}

async function loadNeighbourhoods(): Promise<void> {
  await fillCities();
  const city = value('neighbourhoods-city');
  neighbourhoods = await readNeighbourhoods(city);
  const body = byId<HTMLTableElement>('neighbourhoods-table').tBodies[0]!;
  body.replaceChildren();
  for (const entry of neighbourhoods) {
    const row = body.insertRow();
    cell(row, entry.id);
    cell(row, entry.cityId);
    cell(row, entry.name);
    row.insertCell().append(
      actionButton('Edit', entry.name, () => {
        editNeighbourhood(entry.id).catch(reportTo(nStatus, `Could not open ${entry.id}`));
      }),
    );
  }
  if (neighbourhoods.length === 0) cell(body.insertRow(), 'No neighbourhood.');
  const count = neighbourhoods.length;
  nStatus(`${count} neighbourhood${count === 1 ? '' : 's'}${city ? ` in ${city}` : ''}.`);
}

const neighbourhoodConflict = () => showChanged('neighbourhood', nFormStatus);

async function saveNeighbourhood(): Promise<void> {
  const errors = nErrors();
  errors.clear();
  const id = value('neighbourhood-id');
  const body = { cityId: value('neighbourhood-city'), name: value('neighbourhood-name') };
  if (!id) {
    errors.set('id', ['Give the new neighbourhood an id.']);
    return nFormStatus('Not saved. See the fields marked.');
  }
  const etag = openedNeighbourhood === null ? null : neighbourhoodTag;
  if (openedNeighbourhood === null) {
    // A new entry has no tag to send: the id is looked up first (a read, not atomic: docs/console.md).
    const { entry: stored } = await readNeighbourhood(id);
    if (stored) {
      errors.set('id', [`${id} exists (${stored.name}, ${stored.cityId}): edit it instead.`]);
      return nFormStatus('Not saved. See the fields marked.');
    }
  }
  const answer = await send(neighbourhoodPath(id), { method: 'PUT', ifMatch: etag, body });
  if (answer.status === 412) return neighbourhoodConflict();
  if (answer.status !== 204) return refused(answer, errors, nFormStatus);
  await loadNeighbourhoods();
  openNeighbourhood({ id, ...body }, answer.etag);
  nFormStatus(`Saved ${id}: ${body.name} (${body.cityId}).`);
}

export function showNeighbourhoods(): Promise<void> {
  return loadNeighbourhoods().catch(reportTo(nStatus, 'Could not list the neighbourhoods'));
}

export function wireNeighbourhoods(): void {
  byId<HTMLFormElement>('neighbourhoods-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    void showNeighbourhoods();
  });
  byId<HTMLFormElement>('neighbourhood-form').addEventListener('submit', (event) => {
    event.preventDefault();
    once(byId('neighbourhood-form'), saveNeighbourhood).catch(reportTo(nFormStatus, 'Not saved'));
  });
  byId('neighbourhood-new').addEventListener('click', () => {
    openNeighbourhood(null);
    byId('neighbourhood-id').focus();
  });
  byId('neighbourhood-reload').addEventListener('click', () => {
    const id = openedNeighbourhood?.id;
    if (id === undefined) return;
    readNeighbourhood(id)
      .then(({ entry, etag }) => {
        openNeighbourhood(entry, etag);
        nFormStatus(entry ? `Reloaded ${id}.` : `${id} is gone.`);
        return loadNeighbourhoods();
      })
      .catch(reportTo(nFormStatus, 'Could not reload'));
  });
}

// Plans

let openedPlan: Plan | null = null;
/** The ETag of the opened plan: what its read served, then what the last save answered. */
let planTag: string | null = null;
let planErrors: FieldErrors | undefined;
const pStatus = say('plans-status');
const pFormStatus = say('plan-form-status');
const pErrors = () =>
  (planErrors ??= new FieldErrors({
    name: byId('plan-name'),
    slug: byId('plan-slug'),
    limits: byId('plan-limit-minute'),
    ...Object.fromEntries(WINDOWS.map((w) => [`limits.${w}`, byId(`plan-limit-${w}`)])),
  }));

async function readPlans(): Promise<Plan[]> {
  const answer = await send<{ data: Plan[] }>('/api/v1/admin/plans');
  if (answer.status !== 200) throw new Error(describeFailure(answer));
  return answer.body.data;
}

/** One stored plan with its ETag; a null plan when there is none (404). */
async function readPlan(id: number): Promise<{ plan: Plan | null; etag: string | null }> {
  const answer = await send<Plan>(`/api/v1/admin/plans/${id}`);
  if (answer.status === 404) return { plan: null, etag: null };
  if (answer.status !== 200) throw new Error(describeFailure(answer));
  return { plan: answer.body, etag: answer.etag };
}

/** Opens the plan as it is now, with the tag its save sends; gone since listed → said and the list redrawn. */
async function editPlan(id: number): Promise<void> {
  const { plan, etag } = await readPlan(id);
  if (!plan) {
    pStatus(`Plan ${id} is gone since the list was read.`);
    return loadPlans();
  }
  openPlan(plan, etag);
  byId('plan-name').focus();
}

const limitsText = (plan: Plan) =>
  WINDOWS.filter((w) => plan.limits[w] !== undefined)
    .map((w) => `${plan.limits[w]} per ${w}`)
    .join(', ') || 'none of its own';

function openPlan(plan: Plan | null, etag: string | null = null): void {
  openedPlan = plan;
  planTag = etag;
  pErrors().clear();
  byId('plan-conflict').hidden = true;
  byId<HTMLInputElement>('plan-name').value = plan?.name ?? '';
  byId<HTMLInputElement>('plan-slug').value = plan?.slug ?? '';
  for (const w of WINDOWS)
    byId<HTMLInputElement>(`plan-limit-${w}`).value = String(plan?.limits[w] ?? '');
  byId('plan-form-title').textContent = plan ? `Edit plan ${plan.name}` : 'Add a plan';
  byId('plan-delete').hidden = plan === null;
  byId<HTMLInputElement>('plan-delete-confirm').checked = false;
  pFormStatus('');
}

async function loadPlans(): Promise<void> {
  const plans = await readPlans();
  const body = byId<HTMLTableElement>('plans-table').tBodies[0]!;
  body.replaceChildren();
  for (const plan of plans) {
    const row = body.insertRow();
    cell(row, String(plan.id));
    cell(row, plan.name);
    cell(row, plan.slug);
    cell(row, limitsText(plan));
    row.insertCell().append(
      actionButton('Edit', plan.name, () => {
        editPlan(plan.id).catch(reportTo(pStatus, `Could not open plan ${plan.id}`));
      }),
    );
  }
  if (plans.length === 0) cell(body.insertRow(), 'No stored plan.');
  pStatus(`${plans.length} stored plan${plans.length === 1 ? '' : 's'}.`);
}

/** A limit as typed: a whole number as a number, anything else as the text (the API says what is wrong). */
function limitOf(text: string): number | string {
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

const planConflict = (deleted: boolean) =>
  showChanged('plan', pFormStatus, deleted ? 'Not saved: deleted since you opened it.' : undefined);

async function savePlan(): Promise<void> {
  const errors = pErrors();
  errors.clear();
  const limits: Record<string, number | string> = {};
  for (const w of WINDOWS) {
    const typed = value(`plan-limit-${w}`);
    if (typed) limits[w] = limitOf(typed);
  }
  const body = { name: value('plan-name'), slug: value('plan-slug'), limits };
  const plan = openedPlan;
  const etag = plan ? planTag : null;
  const answer = await send<Plan>(plan ? `/api/v1/admin/plans/${plan.id}` : '/api/v1/admin/plans', {
    method: plan ? 'PUT' : 'POST',
    ifMatch: etag,
    body,
  });
  if (answer.status === 412) return planConflict(false);
  if (plan && answer.status === 404) return planConflict(true);
  if (answer.status !== 200 && answer.status !== 201) return refused(answer, errors, pFormStatus);
  await loadPlans();
  openPlan(answer.body, answer.etag);
  pFormStatus(`${plan ? 'Saved' : 'Created'} plan ${answer.body.name} (id ${answer.body.id}).`);
}

async function deletePlan(): Promise<void> {
  const plan = openedPlan;
  if (!plan) return;
  const answer = await send(`/api/v1/admin/plans/${plan.id}`, {
    method: 'DELETE',
    ifMatch: planTag,
  });
  if (answer.status === 412) return planConflict(false);
  if (answer.status !== 204) return pFormStatus(`Not deleted (${describeFailure(answer)}).`);
  openPlan(null);
  await loadPlans();
  pFormStatus(`Deleted plan ${plan.name}; its customers are on Standard.`);
}

export function showPlans(): Promise<void> {
  return loadPlans().catch(reportTo(pStatus, 'Could not list the plans'));
}

export function wirePlans(): void {
  byId<HTMLFormElement>('plan-editor').addEventListener('submit', (event) => {
    event.preventDefault();
    once(byId('plan-editor'), savePlan).catch(reportTo(pFormStatus, 'Not saved'));
  });
  byId('plan-new').addEventListener('click', () => {
    openPlan(null);
    byId('plan-name').focus();
  });
  byId<HTMLFormElement>('plan-delete').addEventListener('submit', (event) => {
    event.preventDefault();
    once(byId('plan-delete'), deletePlan).catch(reportTo(pFormStatus, 'Not deleted'));
  });
  byId('plan-reload').addEventListener('click', () => {
    const id = openedPlan?.id;
    if (id === undefined) return;
    readPlan(id)
      .then(({ plan, etag }) => {
        openPlan(plan, etag);
        pFormStatus(plan ? `Reloaded plan ${id}.` : `Plan ${id} is gone.`);
        return loadPlans();
      })
      .catch(reportTo(pFormStatus, 'Could not reload'));
  });
}
