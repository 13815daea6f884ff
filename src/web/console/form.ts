/**
 * What every data tab (properties, units, static pages, neighbourhoods,
 * plans) shares: calls to the public API with the session cookie that keep
 * the answer's status, `ETag` and error body; the API's validation answers
 * shown beside the fields they name; the notice of a write refused because
 * the record changed since it was read; one write per form at a time.
 *
 * The API is the one place the rules live; the console only places its
 * sentences: the problem body's 400 `invalidParams` (`[{name, reason}]`) and
 * 422 `validationMessages` (`{field: {rule: sentence}}`, nested like the
 * body), and the customer API's Laravel 422 `errors` (`{"a.b": [sentence]}`),
 * all read as one map from a dotted field path to its sentences.
 */
import type { Json } from './dom';

/** An answer of the API: its status, ETag, Location and parsed body (undefined when it has none). */
export interface Answer<T = unknown> {
  status: number;
  etag: string | null;
  location: string | null;
  body: T;
}

/**
 * One call with the session cookie; never answered from the browser's cache
 * (static pages are `max-age=60`, and an editor must see the stored text).
 * `ifMatch`, when given, is sent as If-Match.
 */
export async function send<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; ifMatch?: string | null } = {},
): Promise<Answer<T>> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    cache: 'no-store',
    headers: {
      accept: 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.ifMatch ? { 'if-match': init.ifMatch } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    location: response.headers.get('location'),
    body: body as T,
  };
}

export interface Problem {
  status: number;
  title?: string;
  detail?: string;
  validationMessages?: Record<string, unknown>;
  invalidParams?: { name: string; reason: string }[];
}

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.title ?? ''}: ${problem.detail ?? ''}`);
  }
}

/** A successful answer's body (`data`), ETag and Location. */
export interface Read<T> {
  data: T;
  etag: string | null;
  location: string | null;
}

/** `send`, for the forms that throw: a failure throws its problem body as an ApiProblem. */
export async function call<T>(
  method: string,
  path: string,
  options: { body?: unknown; ifMatch?: string | null } = {},
): Promise<Read<T>> {
  const answer = await send<T>(path, { method, ...options });
  if (answer.status < 200 || answer.status > 299) {
    const problem = (typeof answer.body === 'object' ? (answer.body ?? {}) : {}) as Problem;
    throw new ApiProblem(answer.status, { ...problem, status: answer.status });
  }
  return { data: answer.body, etag: answer.etag, location: answer.location };
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{location: {cityId: {notInArray: "…"}}}` → `location.cityId` → ["…"]. */
function flattenValidation(messages: Json, prefix: string, into: Map<string, string[]>): void {
  for (const [key, value] of Object.entries(messages)) {
    if (!isObject(value)) continue;
    const sentences = Object.values(value).filter((item) => typeof item === 'string');
    if (sentences.length === Object.keys(value).length && sentences.length > 0) {
      into.set(prefix + key, [...(into.get(prefix + key) ?? []), ...(sentences as string[])]);
    } else {
      flattenValidation(value, `${prefix}${key}.`, into);
    }
  }
}

/** Every field an error body names, with its sentences; empty for any other body. */
export function fieldMessages(body: unknown): Map<string, string[]> {
  const found = new Map<string, string[]>();
  if (!isObject(body)) return found;
  const add = (name: string, sentence: string) =>
    found.set(name, [...(found.get(name) ?? []), sentence]);
  if (Array.isArray(body.invalidParams)) {
    for (const entry of body.invalidParams) {
      if (isObject(entry) && typeof entry.name === 'string' && typeof entry.reason === 'string')
        add(entry.name, entry.reason);
    }
  }
  if (isObject(body.validationMessages)) flattenValidation(body.validationMessages, '', found);
  if (isObject(body.errors)) {
    for (const [name, sentences] of Object.entries(body.errors)) {
      if (Array.isArray(sentences))
        for (const sentence of sentences) if (typeof sentence === 'string') add(name, sentence);
    }
  }
  return found;
}

/** A problem's or a Laravel body's own sentence, else the status. */
export function describeFailure(answer: Answer): string {
  const body = answer.body;
  if (isObject(body)) {
    if (typeof body.detail === 'string') return `${answer.status}: ${body.detail}`;
    if (typeof body.message === 'string') return `${answer.status}: ${body.message}`;
  }
  return `the service answered ${answer.status}`;
}

/**
 * A form's fields by the API's name for them (`limits.minute` → its input).
 * Each gets an error line after it, tied to it by `aria-describedby` while
 * it has something to say.
 */
export class FieldErrors {
  constructor(private readonly fields: Record<string, HTMLElement>) {}

  private lineOf(field: HTMLElement): HTMLElement {
    const id = `${field.id}-error`;
    let line = document.getElementById(id);
    if (!line) {
      line = document.createElement('p');
      line.id = id;
      line.className = 'field-error';
      line.hidden = true;
      field.after(line);
    }
    return line;
  }

  clear(): void {
    for (const field of Object.values(this.fields)) {
      const line = this.lineOf(field);
      line.hidden = true;
      line.textContent = '';
      field.removeAttribute('aria-invalid');
      const described = (field.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter((id) => id && id !== line.id);
      if (described.length) field.setAttribute('aria-describedby', described.join(' '));
      else field.removeAttribute('aria-describedby');
    }
  }

  /** One field's sentences (a check the browser makes before sending, such as JSON syntax). */
  set(name: string, sentences: string[]): void {
    const field = this.fields[name];
    if (!field) return;
    const line = this.lineOf(field);
    line.textContent = sentences.join(' ');
    line.hidden = false;
    field.setAttribute('aria-invalid', 'true');
    const described = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    if (!described.includes(line.id)) described.push(line.id);
    field.setAttribute('aria-describedby', described.join(' '));
  }

  /**
   * Shows what the body names beside each field (a part of a field,
   * `features.0.name`, beside the field, its path said) and moves focus to
   * the first; answers the sentences about fields this form does not have.
   */
  show(body: unknown): string[] {
    this.clear();
    const unplaced: string[] = [];
    const placed = new Map<string, string[]>();
    const names = Object.keys(this.fields);
    for (const [path, sentences] of fieldMessages(body)) {
      const sentence = sentences.join(' ');
      // The field itself, else the longest one the path is a part of.
      const name = this.fields[path]
        ? path
        : names
            .filter((field) => path.startsWith(`${field}.`))
            .sort((a, b) => b.length - a.length)[0];
      if (name === undefined) unplaced.push(`${path}: ${sentence}`);
      else
        placed.set(name, [
          ...(placed.get(name) ?? []),
          name === path ? sentence : `${path}: ${sentence}`,
        ]);
    }
    for (const [name, sentences] of placed) this.set(name, sentences);
    const first = names.find((name) => placed.has(name));
    if (first !== undefined) this.fields[first]?.focus();
    return unplaced;
  }
}

/**
 * What a refused write says: a 400/422's sentences beside the fields (the
 * rest, about fields the form lacks, in the status line), any other answer
 * in the status line.
 */
export function refused(answer: Answer, errors: FieldErrors, status: (line: string) => void): void {
  if (answer.status !== 400 && answer.status !== 422) {
    status(`Not saved (${describeFailure(answer)}).`);
    return;
  }
  const unplaced = errors.show(answer.body);
  status(
    [
      `Not saved: the service refused it (${answer.status}). See the fields marked.`,
      ...unplaced,
    ].join(' '),
  );
}

/**
 * A write refused because the record changed since the form read it (a 412,
 * or a read before writing that found another version): the form's notice
 * (`<stem>-conflict`) shown, focus on its Reload button (`<stem>-reload`),
 * the reason in its status line. Nothing was written; what was typed stays.
 */
export function showChanged(
  stem: string,
  say: (line: string) => void,
  line = 'Not saved: changed since you opened it.',
): void {
  const notice = document.getElementById(`${stem}-conflict`);
  if (notice) notice.hidden = false;
  document.getElementById(`${stem}-reload`)?.focus();
  say(line);
}

const writing = new WeakSet<HTMLElement>();

/**
 * `write` unless one started from `form` is still running (a double click
 * sends one request, not two); the form is `aria-busy` meanwhile. Buttons
 * stay enabled so that the one focused keeps the focus.
 */
export function once(form: HTMLElement, write: () => Promise<void>): Promise<void> {
  if (writing.has(form)) return Promise.resolve();
  writing.add(form);
  form.setAttribute('aria-busy', 'true');
  return write().finally(() => {
    writing.delete(form);
    form.removeAttribute('aria-busy');
  });
}

/** A failure in words: the API's own sentence (`detail`) where it gave one. */
export const reasonOf = (error: unknown) =>
  error instanceof ApiProblem ? (error.problem.detail ?? error.message) : String(error);

/**
 * A number field's value for a body: the number typed, or what was typed
 * when it is none (for the API to name the field), or nothing when empty.
 */
export function numberOrText(typed: string): number | string | undefined {
  const text = typed.trim();
  if (text === '') return undefined;
  return Number.isFinite(Number(text)) ? Number(text) : text;
}

type Attributes = Record<string, string | boolean | undefined>;

/** An element with attributes (a `true` boolean as the bare attribute) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

let fieldCount = 0;
/** A fresh id for a generated control (several pages may show the same form). */
const freshId = (stem: string) => `${stem}-${++fieldCount}`;

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * A labelled control whose API errors appear in the paragraph under it;
 * `path` is the field's place in the body as the API names it
 * (`location.latitude`).
 */
export function field<T extends Control>(label: string, control: T, path: string): HTMLDivElement {
  control.id ||= freshId(path.replace(/\W/g, '-'));
  control.dataset.field = path;
  if (!control.getAttribute('name')) control.setAttribute('name', path);
  const error = h('p', { class: 'field-error', id: `${control.id}-error`, hidden: true });
  const box = h('div', { class: 'field' }, h('label', { for: control.id }, label), control, error);
  return box;
}

/** A labelled checkbox whose API errors appear under it, as `field` does. */
export function checkField(label: string, path: string) {
  const control = h('input', {
    type: 'checkbox',
    id: freshId(path.replace(/\W/g, '-')),
    name: path,
  });
  control.dataset.field = path;
  const error = h('p', { class: 'field-error', id: `${control.id}-error`, hidden: true });
  const box = h(
    'div',
    { class: 'field check' },
    control,
    h('label', { for: control.id }, label),
    error,
  );
  return { box, control };
}

export const input = (attributes: Attributes = {}) =>
  h('input', { autocomplete: 'off', ...attributes });

export function select(values: readonly string[], attributes: Attributes = {}, any?: string) {
  const element = h('select', attributes);
  if (any !== undefined) element.append(h('option', { value: '' }, any));
  for (const value of values) element.append(h('option', { value }, value));
  return element;
}

const controlsOf = (form: HTMLElement) =>
  [...form.querySelectorAll<Control>('[data-field]')].filter((control) => control.dataset.field);

/** A generated form's controls by the API's name for them (`data-field`, set by `field`). */
const fieldsOf = (form: HTMLElement) =>
  new FieldErrors(
    Object.fromEntries(controlsOf(form).map((control) => [control.dataset.field!, control])),
  );

/** Shows one sentence beside its control, described by it for screen readers. */
export function showFieldError(control: Control, sentence: string): void {
  new FieldErrors({ [control.id]: control }).set(control.id, [sentence]);
}

export const clearFieldErrors = (form: HTMLElement): void => fieldsOf(form).clear();

/**
 * Puts each of the problem's messages beside its field, focusing the first;
 * answers the messages no field of the form shows (said in the form's status).
 */
export const showFieldErrors = (form: HTMLElement, problem: Problem): string[] =>
  fieldsOf(form).show(problem);

/**
 * The form's answer to a failure: messages beside their fields, a 412 as a
 * "changed since you opened it" notice with a reload (nothing is
 * overwritten: the form keeps what was typed), anything else in words.
 */
export function reportFailure(
  form: HTMLElement,
  status: HTMLElement,
  error: unknown,
  reload?: () => void,
): void {
  if (error instanceof FieldRefused) {
    status.replaceChildren('Not sent: see the message beside the field.');
    return;
  }
  if (!(error instanceof ApiProblem)) {
    status.replaceChildren(`Not saved: ${String(error)}`);
    return;
  }
  if (error.status === 412 && reload) {
    const button = h('button', { type: 'button' }, 'Reload the property');
    button.addEventListener('click', reload);
    status.replaceChildren(
      h(
        'span',
        { class: 'changed' },
        'Changed since you opened it: someone else saved this property first, so your change was not saved. Reload to see theirs, then make yours again. ',
      ),
      button,
    );
    button.focus();
    return;
  }
  const unplaced = showFieldErrors(form, error.problem);
  const what =
    error.status === 400 || error.status === 422
      ? 'Not saved: see the messages beside the fields.'
      : `Not saved: ${reasonOf(error)}`;
  status.replaceChildren([what, ...unplaced].join(' '));
}

/**
 * Wires a form's submit to `save`: errors cleared, the button disabled
 * while it runs, failures reported beside the fields or in `status`.
 */
export function onSubmit(
  form: HTMLFormElement,
  status: HTMLElement,
  save: () => Promise<string | undefined>,
  reload?: () => void,
): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFieldErrors(form);
    status.replaceChildren('Saving…');
    const buttons = [...form.querySelectorAll('button')];
    for (const button of buttons) button.disabled = true;
    save()
      .then((done) => status.replaceChildren(done ?? 'Saved.'))
      .catch((error: unknown) => reportFailure(form, status, error, reload))
      .finally(() => {
        for (const button of buttons) button.disabled = false;
      });
  });
}

/**
 * A JSON text read before it is sent: an object (or an array when `array`),
 * else the reason shown beside its control and nothing sent.
 */
export function readJson(control: HTMLTextAreaElement, array = false): unknown {
  const text = control.value.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = `Not valid JSON: ${(error as Error).message}`;
    showFieldError(control, reason);
    throw new FieldRefused(reason);
  }
  const shapeOk = array
    ? Array.isArray(value)
    : value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!shapeOk) {
    const reason = array ? 'Must be a JSON array.' : 'Must be a JSON object ({…}).';
    showFieldError(control, reason);
    throw new FieldRefused(reason);
  }
  return value;
}

/** A value refused in the browser before any request: its reason is shown beside the field already. */
export class FieldRefused extends Error {}
