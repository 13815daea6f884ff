/**
 * Hostile variants of a valid request: wrong types, missing and extra fields,
 * extreme numbers, hostile strings, deep and malformed JSON, wrong media
 * types, oversized bodies, repeated and malformed query keys, hostile path
 * segments, forged credentials and odd headers. Each mutator names itself so
 * a finding says what was sent.
 */
import { anyValue, type Rng } from './generate';

export type FuzzBody =
  | { kind: 'none' }
  /** A JSON value; `splices` swap sentinel strings for raw JSON text (`1e999`, `"\ud800"`). */
  | { kind: 'json'; value: unknown; splices?: [sentinel: string, raw: string][] }
  | { kind: 'raw'; text: string }
  /** Sent as a ReadableStream: no Content-Length, the server must count as it reads. */
  | { kind: 'stream'; text: string };

export interface FuzzRequest {
  method: string;
  /** The OpenAPI path template (`/listings/properties/{id}`); the key of the per-route counts. */
  template: string;
  /** Path parameter values, already percent-encoded (hostile ones are sent exactly). */
  params: Record<string, string>;
  /** Query pairs, encoded when sent. */
  query: [string, string][];
  /** Extra raw query text appended as is (malformed keys, `%zz`). */
  rawQuery: string;
  headers: Record<string, string>;
  body: FuzzBody;
  /** Names of the mutations applied, in order (empty: a valid request). */
  mutations: string[];
  /**
   * The path may reach another route than its template (an empty or dot
   * segment): only the rules every response obeys apply. A changed method
   * is told by comparing it with the operation's.
   */
  retargeted?: boolean;
}

export interface QueryParam {
  name: string;
  schema: Record<string, unknown>;
}

export interface MutationContext {
  rng: Rng;
  /** Query parameters the operation declares. */
  queryParams: readonly QueryParam[];
  /** Whether the operation declares a request body. */
  hasBody: boolean;
  /** Hostile Authorization header values (forged, expired, tampered tokens...). */
  forgedAuthorizations: readonly string[];
}

// Built once: big strings cost time to make and the run sends many of them.
const KIB = 1024;
export const LONG_STRING = 'x'.repeat(100 * KIB);
const LONG_UNICODE = '😀\u202eé'.repeat(12 * KIB);
const OVER_LIMIT_TEXT = JSON.stringify({ padding: 'p'.repeat(1024 * KIB + 100) });
const DEEP_40 = (() => {
  let value: unknown = 'bottom';
  for (let i = 0; i < 40; i++) value = i % 2 ? [value] : { a: value };
  return value;
})();
const DEEP_10000_ARRAYS = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
const DEEP_10000_OBJECTS = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
const LONG_QUERY_VALUE = 'q'.repeat(20 * KIB);
const MANY_QUERY_KEYS = Array.from({ length: 2000 }, (_, i) => `k${i}=${i}`).join('&');

const HUGE_NUMBERS: readonly unknown[] = [
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 53 + 1),
  Number.MAX_VALUE,
  5e-324,
  1e21,
  4294967296,
  2147483648,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
];
/** JSON texts that parse to numbers JavaScript cannot hold exactly (or at all). */
const RAW_NUMBERS = [
  '1e999',
  '-1e999',
  '1E400',
  '-0',
  `1${'0'.repeat(400)}`,
  '0.0000000000000000000000001',
  '123456789012345678901234567890',
];
const NEGATIVE_NUMBERS: readonly unknown[] = [-1, -0.5, -2147483649, -100, 0, -1e-9];
const EMPTY_STRINGS: readonly unknown[] = ['', ' ', ' \t\n'];
const HOSTILE_STRINGS: readonly unknown[] = [
  '😀🏠👨‍👩‍👧',
  '\u202eevil\u202c',
  'a\u0000b',
  '\u0000',
  'Ω≈ç√∫˜µ≤',
  '𝕏𝕐ℤ',
  '\ufeffbom',
  'e\u0301\u0301\u0301',
  '\u200b\u200c\u200d',
  '中文字符',
  'مرحبا بالعالم',
  '\n\r\t\v\f\b',
  "'; DROP TABLE users; --",
  '" OR 1=1 --',
  "%' OR '1'='1",
  '%_%',
  '%s%n%x',
  '$' + '{7*7}{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '\\',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  LONG_UNICODE,
];
/** JSON string literals JSON.stringify never writes: lone and reversed surrogates. */
const RAW_STRINGS = ['"\\ud800"', '"\\udfff\\ud800"', '"a\\udc00b"', '"\\u0000\\u0000"'];

const MALFORMED_JSON = [
  '{',
  '}',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  '[1,2',
  'undefined',
  'NaN',
  '{"a":1}garbage',
  '{"a":1}{"b":2}',
  '\u0000',
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '{"a":"\u0001"}',
  '\ufeff{}',
  '{"a":tru}',
  '/* comment */ {}',
];

const NON_OBJECT_BODIES = ['[]', 'null', '3', '"x"', 'true', '[{}]', '-1', '""'];

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'text/html; charset=utf-8',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  'application/jsonx',
  'json',
  '',
  ';;;',
  'application/octet-stream',
];

const HOSTILE_SEGMENTS = [
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2e%2e%2f%2e%2e',
  '..',
  '.',
  '%00',
  'a%00b',
  '%zz',
  '%',
  '%C0%AF',
  '%F0%9F%98%80',
  '%E2%80%AE',
  '%EF%BB%BF',
  '-1',
  '0',
  '1e308',
  '99999999999999999999999',
  'null',
  'undefined',
  '%20',
  '__proto__',
  'constructor',
  '%27%20OR%201%3D1--',
  '%25',
  '%2F',
  'x'.repeat(5000),
  '01890a5d-ac96-774b-bcce-b302099a8057',
];

const MALFORMED_QUERY_KEYS = (name: string) => [
  `${name}[=1`,
  `${name}[][]=x`,
  `${name}[0]=a&${name}[1]=b`,
  `${name}[a][b][c]=1`,
  `${name}=%zz`,
  `%zz=1`,
  `${name}%=1`,
  `=x`,
  `&&&`,
  `${name}`,
  `${name}==`,
  `__proto__[polluted]=1`,
  `constructor[prototype][polluted]=1`,
  `${name}[__proto__]=1`,
  `${name}[]=`,
  `;${name}=1`,
  `${name}=1;${name}=2`,
  `${name}=%00`,
  `${name}[999999999]=x`,
];

const QUERY_WRONG_VALUES = [
  'abc',
  '-1',
  '1e308',
  '1e999',
  'NaN',
  '',
  'true',
  'null',
  '[]',
  '{}',
  '0x10',
  ' 1',
  '1.5',
  '-0',
  '2147483648',
  '😀',
];

const HEADER_VARIANTS: readonly [name: string, value: string][] = [
  ['idempotency-key', 'k'.repeat(300)],
  ['idempotency-key', ''],
  ['idempotency-key', 'fixed-fuzz-key'],
  ['if-match', '"stale"'],
  ['if-match', '*'],
  ['if-none-match', '*'],
  ['if-none-match', 'W/"x", "y"'],
  ['accept-language', '*;q=abc, ;;, zz-ZZZZZ'],
  ['accept-language', 'a'.repeat(5000)],
  ['x-forwarded-for', 'not-an-ip, , 999.1.1.1'],
  ['x-forwarded-for', ''],
  ['cookie', 'session=garbage'],
  ['cookie', 'session=%zz; session=x'],
  ['cookie', `session=${'s'.repeat(4000)}`],
  ['origin', 'null'],
  ['origin', 'https://evil.example'],
  ['x-request-id', 'r'.repeat(500)],
  ['accept', 'text/html'],
  ['accept', 'application/xml'],
  ['range', 'bytes=0-1'],
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

type Path = (string | number)[];

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] =>
  value !== null && typeof value === 'object';

/** Every position in a JSON value, the root first. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (isContainer(value) && prefix.length < 12) {
    for (const [key, child] of Object.entries(value)) {
      pathsOf(child, [...prefix, Array.isArray(value) ? Number(key) : key], out);
    }
  }
  return out;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>(
    (node, key) => (isContainer(node) ? (node as Record<string, unknown>)[key] : undefined),
    value,
  );
}

/** A copy of `value` with the node at `path` replaced (or removed when `remove`). */
function setAt(value: unknown, path: Path, replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const parent = getAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

/** A field position of a JSON body, or the root when it has none. */
function pickField(body: FuzzBody, rng: Rng): Path {
  if (body.kind !== 'json') return [];
  const fields = pathsOf(body.value).filter((path) => path.length > 0);
  return fields.length > 0 ? rng.pick(fields) : [];
}

function jsonBodyOf(request: FuzzRequest): { value: unknown; splices: [string, string][] } {
  return request.body.kind === 'json'
    ? { value: request.body.value, splices: [...(request.body.splices ?? [])] }
    : { value: {}, splices: [] };
}

/** Replaces one field (or the body) of a JSON body with `replacement`. */
function replaceField(request: FuzzRequest, rng: Rng, replacement: unknown): FuzzRequest {
  const { value, splices } = jsonBodyOf(request);
  const path = pickField(request.body, rng);
  return { ...request, body: { kind: 'json', value: setAt(value, path, replacement), splices } };
}

/** Replaces one field with raw JSON text (a literal JSON.stringify would never write). */
function spliceField(request: FuzzRequest, rng: Rng, raw: string): FuzzRequest {
  const sentinel = `\u0001splice${rng.int(0, 1e9)}\u0001`;
  const next = replaceField(request, rng, sentinel);
  const body = next.body as Extract<FuzzBody, { kind: 'json' }>;
  return { ...next, body: { ...body, splices: [...(body.splices ?? []), [sentinel, raw]] } };
}

function wrongTypeFor(value: unknown, rng: Rng): unknown {
  switch (typeof value) {
    case 'string':
      return rng.pick([123, true, null, [], {}, ['x'], 0]);
    case 'number':
      return rng.pick([String(value), true, null, [value], {}, 'one']);
    case 'boolean':
      return rng.pick([String(value), 1, 0, null, [], 'yes']);
    default:
      if (Array.isArray(value)) return rng.pick(['x', {}, 1, null, true]);
      if (value === null) return rng.pick(['x', 0, false, {}]);
      return rng.pick(['x', [], 1, null, false]);
  }
}

function withRawBody(
  request: FuzzRequest,
  text: string,
  contentType = 'application/json',
): FuzzRequest {
  return {
    ...request,
    headers: { ...request.headers, 'content-type': contentType },
    body: { kind: 'raw', text },
  };
}

function queryParamName(rng: Rng, params: readonly QueryParam[]): string {
  return params.length > 0
    ? rng.pick(params).name
    : rng.pick(['page', 'id', 'q', 'sort', 'filter']);
}

export interface Mutator {
  name: string;
  /** Relative weight when the mutator applies. */
  weight: number;
  applies(request: FuzzRequest, context: MutationContext): boolean;
  apply(request: FuzzRequest, context: MutationContext): FuzzRequest;
}

const hasJsonBody = (request: FuzzRequest) => request.body.kind === 'json';
const withBody = (_: FuzzRequest, context: MutationContext) => context.hasBody;
const always = () => true;

/** Puts one of `values` in a random field of a JSON body (`raw`: as JSON text, spliced in). */
function fieldValue(
  name: string,
  weight: number,
  values: readonly unknown[],
  as: 'value' | 'raw' = 'value',
): Mutator {
  return {
    name,
    weight,
    applies: hasJsonBody,
    apply: (request, { rng }) =>
      as === 'raw'
        ? spliceField(request, rng, String(rng.pick(values)))
        : replaceField(request, rng, rng.pick(values)),
  };
}

export const MUTATORS: readonly Mutator[] = [
  {
    name: 'wrong-type',
    weight: 6,
    applies: hasJsonBody,
    apply: (request, { rng }) => {
      const path = pickField(request.body, rng);
      const current = getAt((request.body as { value: unknown }).value, path);
      return replaceField(request, rng, wrongTypeFor(current, rng));
    },
  },
  {
    name: 'missing-field',
    weight: 5,
    applies: (request) =>
      hasJsonBody(request) && pathsOf((request.body as { value: unknown }).value).length > 1,
    apply: (request, { rng }) => {
      const { value, splices } = jsonBodyOf(request);
      const path = pickField(request.body, rng);
      return {
        ...request,
        body: { kind: 'json', value: setAt(value, path, undefined, true), splices },
      };
    },
  },
  {
    name: 'extra-field',
    weight: 4,
    applies: hasJsonBody,
    apply: (request, { rng }) => {
      const { value, splices } = jsonBodyOf(request);
      const objects = pathsOf(value).filter((path) => {
        const node = getAt(value, path);
        return isContainer(node) && !Array.isArray(node);
      });
      const at = objects.length > 0 ? rng.pick(objects) : [];
      const key = rng.pick([
        'zzExtra',
        'id',
        'country',
        'createdAt',
        'role',
        'admin',
        'constructor',
        'toString',
        'x'.repeat(300),
      ]);
      const target = { ...(getAt(value, at) as Record<string, unknown>), [key]: anyValue(rng) };
      return { ...request, body: { kind: 'json', value: setAt(value, at, target), splices } };
    },
  },
  {
    name: 'proto-key',
    weight: 1,
    applies: withBody,
    apply: (request, { rng }) => {
      const inner =
        request.body.kind === 'json' &&
        isContainer(request.body.value) &&
        !Array.isArray(request.body.value)
          ? JSON.stringify(request.body.value).slice(1, -1)
          : '';
      const polluted = rng.pick([
        '"__proto__":{"polluted":true,"role":"employee"}',
        '"constructor":{"prototype":{"polluted":true}}',
      ]);
      return withRawBody(request, `{${polluted}${inner ? `,${inner}` : ''}}`);
    },
  },
  {
    name: 'duplicate-key',
    weight: 1,
    applies: hasJsonBody,
    apply: (request) => {
      const text = JSON.stringify((request.body as { value: unknown }).value ?? {});
      return withRawBody(
        request,
        text.startsWith('{') && text.length > 2 ? `{"a":1,"a":[2],${text.slice(1)}` : text,
      );
    },
  },
  fieldValue('huge-number', 4, HUGE_NUMBERS),
  fieldValue('raw-number', 2, RAW_NUMBERS, 'raw'),
  fieldValue('negative-number', 3, NEGATIVE_NUMBERS),
  fieldValue('empty-string', 3, EMPTY_STRINGS),
  fieldValue('long-string', 2, [LONG_STRING]),
  fieldValue('unicode', 4, HOSTILE_STRINGS),
  fieldValue('lone-surrogate', 2, RAW_STRINGS, 'raw'),
  {
    name: 'long-array',
    weight: 1,
    applies: hasJsonBody,
    apply: (request, { rng }) =>
      replaceField(
        request,
        rng,
        Array.from({ length: rng.pick([101, 1000, 10_000]) }, (_, i) => rng.pick([i, `v${i}`, {}])),
      ),
  },
  {
    name: 'deep-json-40',
    weight: 2,
    applies: withBody,
    apply: (request, { rng }) => replaceField(request, rng, DEEP_40),
  },
  {
    name: 'deep-json-10000',
    weight: 1,
    applies: withBody,
    apply: (request, { rng }) =>
      withRawBody(request, rng.pick([DEEP_10000_ARRAYS, DEEP_10000_OBJECTS])),
  },
  {
    name: 'non-object-body',
    weight: 3,
    applies: withBody,
    apply: (request, { rng }) => withRawBody(request, rng.pick(NON_OBJECT_BODIES)),
  },
  {
    name: 'malformed-json',
    weight: 4,
    applies: withBody,
    apply: (request, { rng }) => {
      if (rng.chance(0.3) && request.body.kind === 'json') {
        const text = JSON.stringify(request.body.value ?? {});
        return withRawBody(request, text.slice(0, rng.int(0, Math.max(0, text.length - 1))));
      }
      return withRawBody(request, rng.pick(MALFORMED_JSON));
    },
  },
  {
    name: 'wrong-content-type',
    weight: 3,
    applies: withBody,
    apply: (request, { rng }) => {
      const text = request.body.kind === 'json' ? JSON.stringify(request.body.value ?? {}) : '{}';
      const type = rng.pick(WRONG_CONTENT_TYPES);
      if (type === '') {
        const { 'content-type': _, ...headers } = request.headers;
        return { ...request, headers, body: { kind: 'raw', text } };
      }
      return withRawBody(request, rng.chance(0.5) ? text : 'a=1&b=2', type);
    },
  },
  {
    name: 'oversized-body',
    weight: 1,
    applies: withBody,
    apply: (request) => withRawBody(request, OVER_LIMIT_TEXT),
  },
  {
    name: 'streamed-body',
    weight: 1,
    applies: withBody,
    apply: (request, { rng }) => ({
      ...request,
      headers: { ...request.headers, 'content-type': 'application/json' },
      body: {
        kind: 'stream',
        text: rng.chance(0.5) ? OVER_LIMIT_TEXT : JSON.stringify(jsonBodyOf(request).value),
      },
    }),
  },
  {
    name: 'empty-body',
    weight: 2,
    applies: withBody,
    apply: (request) => withRawBody(request, ''),
  },
  {
    name: 'unexpected-body',
    weight: 1,
    applies: (_, context) => !context.hasBody,
    apply: (request, { rng }) => ({
      ...request,
      headers: { ...request.headers, 'content-type': 'application/json' },
      body: { kind: 'json', value: anyValue(rng) },
    }),
  },
  {
    name: 'query-wrong-type',
    weight: 4,
    applies: (_, context) => context.queryParams.length > 0,
    apply: (request, { rng, queryParams }) => {
      const name = rng.pick(queryParams).name;
      return {
        ...request,
        query: [
          ...request.query.filter(([key]) => key !== name),
          [name, rng.pick(QUERY_WRONG_VALUES)],
        ],
      };
    },
  },
  {
    name: 'repeated-query',
    weight: 3,
    applies: always,
    apply: (request, { rng, queryParams }) => {
      const name = queryParamName(rng, queryParams);
      const copies = rng.pick([2, 3, 50]);
      const extra: [string, string][] = Array.from({ length: copies }, (_, i) => [
        name,
        rng.pick([String(i), 'a', '', 'true', '-1']),
      ]);
      return { ...request, query: [...request.query, ...extra] };
    },
  },
  {
    name: 'malformed-query',
    weight: 4,
    applies: always,
    apply: (request, { rng, queryParams }) => {
      const name = queryParamName(rng, queryParams);
      return { ...request, rawQuery: rng.pick(MALFORMED_QUERY_KEYS(name)) };
    },
  },
  {
    name: 'long-query',
    weight: 1,
    applies: always,
    apply: (request, { rng, queryParams }) => {
      const name = queryParamName(rng, queryParams);
      return {
        ...request,
        rawQuery: rng.chance(0.5) ? `${name}=${LONG_QUERY_VALUE}` : MANY_QUERY_KEYS,
      };
    },
  },
  {
    name: 'unknown-query',
    weight: 2,
    applies: always,
    apply: (request, { rng }) => ({
      ...request,
      query: [
        ...request.query,
        [rng.pick(['zz', 'debug', 'admin', '__proto__', 'include']), rng.pick(['1', 'true', '*'])],
      ],
    }),
  },
  {
    name: 'hostile-path-param',
    weight: 4,
    applies: (request) => Object.keys(request.params).length > 0,
    apply: (request, { rng }) => {
      const name = rng.pick(Object.keys(request.params));
      const segment = rng.pick([...HOSTILE_SEGMENTS, '']);
      return {
        ...request,
        params: { ...request.params, [name]: segment },
        // `/a/{id}` with '', '.' or '..' (also as %2e) is another path: the URL
        // parser folds dot segments.
        retargeted: request.retargeted || /^(?:\.|%2e){0,2}$/i.test(segment),
      };
    },
  },
  {
    name: 'forged-auth',
    weight: 4,
    applies: always,
    apply: (request, { rng, forgedAuthorizations }) => ({
      ...request,
      headers: { ...request.headers, authorization: rng.pick(forgedAuthorizations) },
    }),
  },
  {
    name: 'no-auth',
    weight: 2,
    applies: (request) => 'authorization' in request.headers,
    apply: (request) => {
      const { authorization: _, ...headers } = request.headers;
      return { ...request, headers };
    },
  },
  {
    name: 'odd-header',
    weight: 3,
    applies: always,
    apply: (request, { rng }) => {
      const [name, value] = rng.pick(HEADER_VARIANTS);
      return { ...request, headers: { ...request.headers, [name]: value } };
    },
  },
  {
    name: 'wrong-method',
    weight: 2,
    applies: always,
    // Another operation unless a second round picks the original method back
    // (the runner compares the method sent with the operation's).
    apply: (request, { rng }) => ({
      ...request,
      method: rng.pick(METHODS.filter((m) => m !== request.method)),
    }),
  },
];

/** Applies 1 to 3 applicable mutators, chosen by weight. */
export function mutate(request: FuzzRequest, context: MutationContext): FuzzRequest {
  const { rng } = context;
  let current = request;
  const rounds = rng.chance(0.75) ? 1 : rng.int(2, 3);
  for (let round = 0; round < rounds; round++) {
    const candidates = MUTATORS.filter((m) => m.applies(current, context));
    const total = candidates.reduce((sum, m) => sum + m.weight, 0);
    let roll = rng.next() * total;
    let chosen = candidates[candidates.length - 1]!;
    for (const candidate of candidates) {
      roll -= candidate.weight;
      if (roll < 0) {
        chosen = candidate;
        break;
      }
    }
    current = { ...chosen.apply(current, context), mutations: [...current.mutations, chosen.name] };
  }
  return current;
}

/** The JSON text of a body, raw splices applied. */
export function bodyText(body: FuzzBody): string | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'raw':
    case 'stream':
      return body.text;
    case 'json': {
      let text = JSON.stringify(body.value) ?? 'null';
      for (const [sentinel, raw] of body.splices ?? [])
        text = text.replace(JSON.stringify(sentinel), raw);
      return text;
    }
  }
}

/** The path and query as sent: params substituted, pairs encoded, raw query appended. */
export function urlPathOf(request: FuzzRequest): string {
  const path = request.template.replace(
    /\{([^}]+)\}/g,
    (_, name: string) => request.params[name] ?? '',
  );
  // A lone surrogate cannot be sent as UTF-8: a client's URL encoder (WHATWG
  // URL) sends U+FFFD for it, and encodeURIComponent would throw instead.
  const encode = (text: string) => encodeURIComponent(text.toWellFormed());
  const pairs = request.query.map(([key, value]) => `${encode(key)}=${encode(value)}`);
  if (request.rawQuery) pairs.push(request.rawQuery);
  return pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;
}
