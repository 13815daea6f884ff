/**
 * The API's validation answers shown beside the fields they name. The API
 * is the one place the rules live; the console only places its sentences:
 * the problem body's 400 `invalidParams` (`[{name, reason}]`) and 422
 * `validationMessages` (`{field: {rule: sentence}}`, nested like the body),
 * and the customer API's Laravel 422 `errors` (`{"a.b": [sentence]}`), all
 * read as one map from a dotted field path to its sentences.
 */
import type { Json } from './dom';

/** An answer of the API: its status, ETag and parsed body (undefined when it has none). */
export interface Answer<T = unknown> {
  status: number;
  etag: string | null;
  body: T;
}

/**
 * One call with the session cookie; never answered from the browser's cache
 * (static pages are `max-age=60`, and an editor must see the stored text).
 */
export async function send<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    cache: 'no-store',
    headers: {
      accept: 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
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
  return { status: response.status, etag: response.headers.get('etag'), body: body as T };
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
   * Shows what the body names beside each field and moves focus to the
   * first; answers the sentences about fields this form does not have.
   */
  show(body: unknown): string[] {
    this.clear();
    const unplaced: string[] = [];
    let first: HTMLElement | undefined;
    for (const [name, sentences] of fieldMessages(body)) {
      // A nested name the form shows as one field (`seoMetaData.x` → seoMetaData).
      const key = this.fields[name] ? name : name.split('.')[0]!;
      if (this.fields[key]) {
        this.set(key, sentences);
        first ??= this.fields[key];
      } else unplaced.push(`${name}: ${sentences.join(' ')}`);
    }
    first?.focus();
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
