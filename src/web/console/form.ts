/**
 * What the data pages (properties, units) share: calls to the public API
 * that keep the answer's problem body and `ETag`, forms whose fields show
 * the API's own messages beside them (`validationMessages` of a 422,
 * `invalidParams` of a 400, matched by the field's path), and the notice of
 * a write refused because the record changed since it was read.
 */
import { fieldMessages } from './field-errors';

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

export interface Answer<T> {
  data: T;
  etag: string | null;
  location: string | null;
}

/** One call with the session cookie; a failure throws its problem body as an ApiProblem. */
export async function call<T>(
  method: string,
  path: string,
  options: { body?: unknown; ifMatch?: string | null } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  const response = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const problem = (parsed ?? {}) as Problem;
    throw new ApiProblem(response.status, { ...problem, status: response.status });
  }
  return {
    data: parsed as T,
    etag: response.headers.get('etag'),
    location: response.headers.get('location'),
  };
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

/** Shows one sentence beside its control, described by it for screen readers. */
export function showFieldError(control: Control, sentence: string): void {
  const error = document.getElementById(`${control.id}-error`);
  if (!error) return;
  error.textContent = sentence;
  error.hidden = false;
  control.setAttribute('aria-invalid', 'true');
  control.setAttribute('aria-describedby', error.id);
}

export function clearFieldErrors(form: HTMLElement): void {
  for (const control of controlsOf(form)) {
    const error = document.getElementById(`${control.id}-error`);
    if (error) {
      error.textContent = '';
      error.hidden = true;
    }
    control.removeAttribute('aria-invalid');
    control.removeAttribute('aria-describedby');
  }
}

/**
 * Puts each of the problem's messages beside its field, focusing the first;
 * answers the messages no field of the form shows (said in the form's status).
 */
export function showFieldErrors(form: HTMLElement, problem: Problem): string[] {
  const controls = controlsOf(form);
  const unplaced: string[] = [];
  const sentences = new Map<Control, string[]>();
  // The API's error bodies read as the other data pages read them (field-errors.ts).
  for (const [path, said] of fieldMessages(problem)) {
    const sentence = said.join(' ');
    // A message about a part of a field (`features.0.name`) is shown beside the field.
    const control = controls.find(
      ({ dataset }) => path === dataset.field || path.startsWith(`${dataset.field}.`),
    );
    if (!control) unplaced.push(`${path}: ${sentence}`);
    else
      sentences.set(control, [
        ...(sentences.get(control) ?? []),
        path === control.dataset.field ? sentence : `${path}: ${sentence}`,
      ]);
  }
  for (const [control, texts] of sentences) showFieldError(control, texts.join(' '));
  controls.find((control) => sentences.has(control))?.focus();
  return unplaced;
}

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
