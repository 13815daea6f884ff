/**
 * What every response must satisfy, whatever was sent: no 5xx (unless the
 * operation documents it), an answer in time, a JSON (or problem+json) body
 * when there is one, the route's own documented schema for that status, the
 * error body (docs/errors.md: problem outside /api/v1, `{message}`
 * inside), and nothing internal leaked (stack traces, hashes, SQL, secrets).
 * Strict (the default): the status must be one the operation lists, and a
 * body's media type one listed for that status — the document tells the
 * whole truth.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { PROBLEM_TYPE, PROBLEMS } from '@/api/problem';
import type { Schema } from './generate';

export interface DocumentedResponse {
  /** JSON schema of the response body for this status, when documented. */
  schema?: Schema;
  /** Media types documented for this status (`text/html` for a page). */
  mediaTypes?: string[];
}

export interface CheckOptions {
  /** Strings that must never appear in a response. */
  secrets?: readonly string[];
  /** Paths of browser pages and their assets: a 2xx body there may be HTML, CSS or JS. */
  pages?: RegExp;
  /**
   * Fail on a status the operation does not list, or a body whose media type
   * its response does not list (default true). Off only to survey a document.
   */
  strict?: boolean;
}

/** The front page (/), the API docs UI (/docs) and the account page (/account). */
export const DEFAULT_PAGES = /^\/(?:(?:docs|account)(?:\/|$)|$)/;

export interface CheckedOperation {
  key: string;
  responses: Record<string, DocumentedResponse>;
}

export interface Observed {
  method: string;
  /** Path and query as sent. */
  url: string;
  status: number;
  headers: Headers;
  text: string;
  elapsedMs: number;
  timedOut: boolean;
}

const COMPONENTS_ID = 'https://fuzz.invalid/components';

/** Points `#/components/schemas/X` at the registered components and drops nested `$schema`s. */
function rewrite(node: unknown, root = true): unknown {
  if (Array.isArray(node)) return node.map((child) => rewrite(child, false));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' && !root) continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out[key] = `${COMPONENTS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`;
    } else out[key] = rewrite(value, false);
  }
  return out;
}

/** Compiles each documented response schema once, with Ajv (JSON Schema 2020-12 + formats). */
export class ResponseSchemas {
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<Schema, ValidateFunction | string>();

  constructor(components: Record<string, unknown> = {}) {
    // unicodeRegExp off: zod's patterns are ECMAScript regexes, not all valid with the u flag.
    this.#ajv = new Ajv2020({
      strict: false,
      unicodeRegExp: false,
      allErrors: false,
      logger: false,
    });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewrite(components, false) as object });
  }

  /** Undefined when valid, else Ajv's first error; a schema Ajv cannot compile is reported once. */
  validate(schema: Schema, value: unknown): string | undefined {
    let validator = this.#compiled.get(schema);
    if (validator === undefined) {
      validator = this.#compile(schema);
      this.#compiled.set(schema, validator);
    }
    if (typeof validator === 'string') return validator;
    if (validator(value)) return undefined;
    const [first] = validator.errors ?? [];
    return first
      ? `${first.instancePath || '(root)'} ${first.message} ${JSON.stringify(first.params)}`
      : 'invalid';
  }

  #compile(schema: Schema): ValidateFunction | string {
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        return this.#ajv.compile(rewrite(schema) as object);
      } catch (error) {
        // An unknown format is annotation only: accept any string for it and retry.
        const unknown = /unknown format "([^"]+)"/.exec(String(error));
        if (!unknown) return `documented schema does not compile: ${String(error).slice(0, 200)}`;
        this.#ajv.addFormat(unknown[1]!, true);
      }
    }
    return 'documented schema does not compile';
  }
}

const mediaTypeOf = (headers: Headers) =>
  (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
const isCustomerApi = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');
/** The path the service resolves (`/properties/..` is `/`), as a URL parser removes dot segments. */
function pathOf(url: string): string {
  const sent = url.split('?')[0]!;
  try {
    return new URL(`http://fuzz.invalid${sent}`).pathname;
  } catch {
    return sent;
  }
}

/** Things no response may contain (a stack frame, a file path, a hash, SQL, a secret). */
function leaks(text: string, secrets: readonly string[]): string | undefined {
  if (/\n\s+at\s+\S+.*:\d+:\d+/.test(text) || /\bat [\w.<>]+ \(.*:\d+:\d+\)/.test(text))
    return 'a stack trace';
  if (/(?:\/src\/|\/node_modules\/)[\w./-]+\.(?:ts|js)/.test(text)) return 'a source file path';
  if (/\$argon2(?:id|i|d)\$/.test(text) || /\$2[aby]\$\d\d\$/.test(text)) return 'a password hash';
  if (/SQLITE_[A-Z]+|no such (?:table|column)|syntax error at|near ".*": syntax error/i.test(text))
    return 'a database error';
  for (const secret of secrets) if (secret && text.includes(secret)) return 'a configured secret';
  return undefined;
}

function checkErrorBody(observed: Observed, body: unknown): string[] {
  const { status } = observed;
  const path = pathOf(observed.url);
  const media = mediaTypeOf(observed.headers);
  const object =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  if (!object) return [`error body is not a JSON object`];
  if (status === 429 && 'rate_limit' in object) {
    return typeof object.message === 'string' ? [] : ['429 body without a message'];
  }
  if (isCustomerApi(path)) {
    const problems: string[] = [];
    if (typeof object.message !== 'string')
      problems.push('customer API error without a string message');
    if (media !== 'application/json') problems.push(`customer API error served as ${media}`);
    return problems;
  }
  const problems: string[] = [];
  if (media !== 'application/problem+json')
    problems.push(`error served as ${media}, not application/problem+json`);
  if (object.type !== PROBLEM_TYPE && !(status === 422 && object.type === undefined))
    problems.push(`problem type ${JSON.stringify(object.type)}`);
  if (typeof object.title !== 'string') problems.push('problem without a title');
  else if (PROBLEMS[status] && object.title !== PROBLEMS[status].title)
    problems.push(`problem title ${JSON.stringify(object.title)} for ${status}`);
  if (object.status !== status)
    problems.push(`problem status ${JSON.stringify(object.status)} on a ${status}`);
  if (typeof object.detail !== 'string') problems.push('problem without a detail');
  if (
    status === 422 &&
    (object.validationMessages === null || typeof object.validationMessages !== 'object')
  ) {
    problems.push('422 without validationMessages');
  }
  return problems;
}

/** A status the operation does not list, or a body in a media type its response does not list. */
function undocumented(
  operation: CheckedOperation,
  { status, text, headers, method }: Observed,
  documented: DocumentedResponse | undefined,
): string[] {
  if (!documented) return [`status ${status} is not documented for ${operation.key}`];
  if (text === '' || method === 'HEAD') return [];
  const media = mediaTypeOf(headers);
  const listed = documented.mediaTypes ?? [];
  return listed.includes(media)
    ? []
    : [
        `${status} body served as ${media || '(none)'}, documented as ${listed.join(', ') || 'no body'}`,
      ];
}

/** Every way the response breaks the rules; empty when it is fine. */
export function checkResponse(
  operation: CheckedOperation | undefined,
  observed: Observed,
  schemas: ResponseSchemas,
  { secrets = [], pages = DEFAULT_PAGES, strict = true }: CheckOptions = {},
): string[] {
  if (observed.timedOut) return [`no answer within ${Math.round(observed.elapsedMs)} ms (hang)`];
  const { status, headers, text, method } = observed;
  const path = pathOf(observed.url);
  const documented = operation?.responses[String(status)];
  const problems: string[] = [];
  if (strict && operation) problems.push(...undocumented(operation, observed, documented));
  // A documented 500 (static pages list one) is still a failure under fuzzing.
  if (status === 500 || (status > 500 && !documented)) problems.push(`server error ${status}`);
  const leaked = leaks(text, secrets);
  if (leaked) problems.push(`response leaks ${leaked}`);
  if (status === 405 && !headers.get('allow')) problems.push('405 without Allow');
  if (status === 429 && !/^\d+$/.test(headers.get('retry-after') ?? ''))
    problems.push('429 without a whole-second Retry-After');
  if (method === 'HEAD') return problems;
  if (status === 204 || status === 304) {
    if (text !== '') problems.push(`${status} with a body`);
    return problems;
  }
  if (text === '') {
    if (status >= 400) problems.push(`${status} without a body`);
    return problems;
  }
  const media = mediaTypeOf(headers);
  if (documented?.mediaTypes?.includes(media) && !media.includes('json')) return problems;
  if (status < 300 && pages.test(path) && /^(?:text\/|application\/javascript)/.test(media)) {
    return problems;
  }
  if (media !== 'application/json' && media !== 'application/problem+json') {
    problems.push(`body served as ${JSON.stringify(media)}`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push('body is not valid JSON');
    return problems;
  }
  if (status >= 400) problems.push(...checkErrorBody(observed, body));
  if (documented?.schema) {
    const invalid = schemas.validate(documented.schema, body);
    if (invalid) problems.push(`body breaks the documented ${status} schema: ${invalid}`);
  }
  return problems;
}
