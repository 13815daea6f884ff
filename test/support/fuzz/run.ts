/**
 * The OpenAPI-driven fuzzer: reads `/docs/json` from the service itself, so
 * every route a feature documents is fuzzed without listing it here; builds
 * valid requests from each operation's schemas, mutates most of them, sends
 * them in-process, checks every response and reports counts and findings.
 */
import {
  type CheckedOperation,
  type CheckOptions,
  checkResponse,
  type DocumentedResponse,
  type Observed,
  ResponseSchemas,
} from './check';
import { generate, mixSeed, Rng, type Schema } from './generate';
import {
  bodyText,
  type FuzzRequest,
  type MutationContext,
  mutate,
  type QueryParam,
  urlPathOf,
} from './mutate';

const BASE = 'http://localhost';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

export interface Operation extends CheckedOperation {
  method: string;
  template: string;
  pathParams: QueryParam[];
  queryParams: QueryParam[];
  /** JSON schema of the request body, when the operation declares one. */
  body?: Schema;
  /** Not in the document: /docs, unknown paths. Fuzzed lightly. */
  synthetic?: boolean;
}

export interface Credential {
  sub: string;
  aud: 'customer' | 'employee';
  token: string;
}

export interface FuzzOptions extends CheckOptions {
  fetch: (request: Request) => Response | Promise<Response>;
  /** At least this many requests in total (more when operations need their minimum). */
  requests: number;
  seed: number;
  /** Valid credentials: employees and customers. Their subjects also fill id-like fields. */
  credentials: readonly Credential[];
  /** Hostile Authorization values (see credentials.ts). */
  forgedAuthorizations: readonly string[];
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** A request not answered in this time is a hang (default 5000 ms). */
  timeoutMs?: number;
  /** Every documented operation gets at least this many requests (default 200). */
  minPerOperation?: number;
  /**
   * An operation whose median warm-up latency is above this (default 20 ms)
   * gets only the minimum; the others share the rest of the total.
   */
  slowMs?: number;
  /** Valid requests per operation before fuzzing, one at a time (default 3): ids to reuse, latencies. */
  warmUpRequests?: number;
  /**
   * Real values to start from: keyed by a path parameter or field name
   * (`id`, `slug`) or by `segment:<literal>` for the parameter that follows a
   * path segment (`segment:properties`). Values seen in 2xx responses are added.
   */
  seeds?: Readonly<Record<string, readonly string[]>>;
  /** Send `X-Forwarded-For` from many addresses (for a service with TRUST_PROXY). */
  spreadClientAddresses?: boolean;
  /**
   * The service's own origin: sent as `Origin` on half the requests that carry
   * a session cookie (cookies come from Set-Cookie in 2xx answers).
   */
  origin?: string;
  /** Only operations whose key (`GET /path/{id}`) matches. */
  only?: RegExp;
}

export interface RouteStats {
  /** In /docs/json (false for /docs and unknown paths). */
  documented: boolean;
  sent: number;
  statuses: Map<number, number>;
  /** 2xx statuses answered for this operation that its responses do not list. */
  undocumented: Set<number>;
  elapsedMs: number;
}

export interface Finding {
  route: string;
  mutations: string[];
  request: string;
  status: number;
  response: string;
  problems: string[];
}

export interface FuzzReport {
  seed: number;
  sent: number;
  elapsedMs: number;
  routes: Map<string, RouteStats>;
  findings: Finding[];
  /** Requests the client itself could not build (a GET with a body): not sent, not counted. */
  unsendable: number;
  /** Operations that got only the minimum share: slower than `slowMs` in the warm-up. */
  slow: string[];
}

type OpenApiResponse = { $ref?: string; content?: Record<string, { schema?: Schema }> };
type OpenApiDocument = {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, Schema>;
    responses?: Record<string, OpenApiResponse>;
    parameters?: Record<string, OpenApiParameter>;
  };
};
type OpenApiParameter = {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
};
type OpenApiOperation = {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, OpenApiResponse>;
};

/** A `#/components/<kind>/<name>` reference resolved (shared answers and parameters). */
function resolved<T extends { $ref?: string }>(
  document: OpenApiDocument,
  kind: 'responses' | 'parameters',
  node: T,
): T {
  const prefix = `#/components/${kind}/`;
  if (!node.$ref?.startsWith(prefix)) return node;
  const target = document.components?.[kind]?.[node.$ref.slice(prefix.length)];
  return (target as T | undefined) ?? node;
}

const jsonSchemaOf = (content: Record<string, { schema?: Schema }> | undefined) => {
  if (!content) return undefined;
  const type = Object.keys(content).find((t) => t === 'application/json' || t.endsWith('+json'));
  return type ? content[type]?.schema : undefined;
};

/** The operations of an OpenAPI document, with `{param}` templates. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = (operation.parameters ?? []).map((p) =>
        resolved(document, 'parameters', p),
      );
      const paramsIn = (where: string) =>
        parameters
          .filter((p) => p.in === where)
          .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required }));
      const responses: Record<string, DocumentedResponse> = {};
      for (const [status, declared] of Object.entries(operation.responses ?? {})) {
        const response = resolved(document, 'responses', declared);
        responses[status] = {
          schema: jsonSchemaOf(response.content),
          mediaTypes: Object.keys(response.content ?? {}),
        };
      }
      const upper = method.toUpperCase();
      operations.push({
        key: `${upper} ${template}`,
        method: upper,
        template,
        pathParams: paramsIn('path'),
        queryParams: paramsIn('query'),
        body: jsonSchemaOf(operation.requestBody?.content),
        responses,
      });
    }
  }
  return operations;
}

/** Paths no route serves (sent raw: slashes included), for the 404/405 answers. */
const UNKNOWN_PATHS = [
  'zz',
  'listings/zz',
  'api/v1/zz',
  'api/v2/x',
  'auth/zz',
  'content/zz/zz',
  'admin/zz',
  'docs/zz',
  '',
  'health/x',
  'listings/properties/x/y/z/w',
  'api',
  'api/v1',
];

const SYNTHETIC: Operation[] = [
  {
    key: 'GET /docs',
    method: 'GET',
    template: '/docs',
    pathParams: [],
    queryParams: [],
    responses: {},
    synthetic: true,
  },
  {
    key: 'GET /docs/json',
    method: 'GET',
    template: '/docs/json',
    pathParams: [],
    queryParams: [],
    responses: {},
    synthetic: true,
  },
  {
    key: 'ANY /{unknown}',
    method: 'GET',
    template: '/{unknown}',
    pathParams: [{ name: 'unknown', schema: { type: 'string' } }],
    queryParams: [],
    responses: {},
    synthetic: true,
  },
];

/** Real values seen so far, by field or parameter name and by `segment:<literal>`. */
class ValuePools {
  readonly #pools = new Map<string, string[]>();

  add(key: string, value: string) {
    if (value === '' || value.length > 200) return;
    const pool = this.#pools.get(key) ?? [];
    if (pool.includes(value)) return;
    if (pool.length >= 64) pool.shift();
    pool.push(value);
    this.#pools.set(key, pool);
  }

  get(key: string, rng: Rng): string | undefined {
    const pool = this.#pools.get(key);
    return pool && pool.length > 0 ? rng.pick(pool) : undefined;
  }
}

const isIdLike = (name: string) => /(?:^id|Id|_id|^sub|^owner|^customer)$/.test(name);
const literalBefore = (template: string, param: string) => {
  const segments = template.split('/');
  const index = segments.indexOf(`{${param}}`);
  return index > 0 ? segments[index - 1] : undefined;
};
const lastLiteral = (template: string) =>
  template
    .split('/')
    .filter((s) => s && !s.startsWith('{'))
    .pop();

/** Query pairs for a value: arrays as repeated keys, objects as `name[key]` (deepObject). */
function queryPairs(name: string, value: unknown): [string, string][] {
  if (value === undefined) return [];
  if (Array.isArray(value)) {
    return value.every((item) => item === null || typeof item !== 'object')
      ? value.map((item) => [name, String(item ?? '')])
      : value.flatMap((item, i) => queryPairs(`${name}[${i}]`, item));
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) => queryPairs(`${name}[${key}]`, child));
  }
  return [[name, String(value ?? '')]];
}

function encodeSegment(value: unknown): string {
  return encodeURIComponent(String(value ?? '').toWellFormed());
}

interface State {
  options: FuzzOptions;
  pools: ValuePools;
  resolveRef: (ref: string) => Schema | undefined;
  subjects: string[];
}

function knownValue(state: State, rng: Rng) {
  return (name: string) => {
    const seen = state.pools.get(name, rng);
    if (seen !== undefined && rng.chance(0.7)) return seen;
    if (isIdLike(name) && rng.chance(0.5) && state.subjects.length > 0)
      return rng.pick(state.subjects);
    return undefined;
  };
}

/** A valid request for the operation (as far as the schemas tell), with a credential. */
function validRequest(
  operation: Operation,
  state: State,
  rng: Rng,
  credential?: Credential,
): FuzzRequest {
  const generateOptions = { rng, resolveRef: state.resolveRef, known: knownValue(state, rng) };
  const params: Record<string, string> = {};
  for (const param of operation.pathParams) {
    const segment = literalBefore(operation.template, param.name);
    const real =
      (segment && rng.chance(0.8) ? state.pools.get(`segment:${segment}`, rng) : undefined) ??
      state.pools.get(param.name, rng);
    // Never empty: `/a/{id}` with '' is another route (`/a/`).
    const schema = { minLength: 1, ...param.schema };
    params[param.name] = encodeSegment(real ?? generate(schema, generateOptions, param.name));
  }
  const query: [string, string][] = [];
  for (const param of operation.queryParams as (QueryParam & { required?: boolean })[]) {
    if (!param.required && !rng.chance(0.5)) continue;
    // A long poll's valid values hold the answer back on purpose: not a hang to look for.
    if ((param.schema as Record<string, unknown>)['x-long-poll'] === true && !param.required) {
      continue;
    }
    query.push(...queryPairs(param.name, generate(param.schema, generateOptions, param.name)));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  const cookie = rng.chance(0.15) ? state.pools.get('set-cookie', rng) : undefined;
  if (cookie) {
    // A browser session instead of the bearer token (CSRF rules apply to it).
    headers.cookie = cookie;
    if (state.options.origin && rng.chance(0.5)) headers.origin = state.options.origin;
  } else if (credential) headers.authorization = `Bearer ${credential.token}`;
  if (state.options.spreadClientAddresses)
    headers['x-forwarded-for'] = `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
  let body: FuzzRequest['body'] = { kind: 'none' };
  if (operation.body) {
    headers['content-type'] = 'application/json';
    body = { kind: 'json', value: generate(operation.body, generateOptions) };
  }
  return {
    method: operation.method,
    template: operation.template,
    params,
    query,
    rawQuery: '',
    headers,
    body,
    mutations: [],
  };
}

function pickCredential(credentials: readonly Credential[], rng: Rng): Credential | undefined {
  const roll = rng.next();
  const employees = credentials.filter((c) => c.aud === 'employee');
  const customers = credentials.filter((c) => c.aud === 'customer');
  if (roll < 0.45 && employees.length > 0) return rng.pick(employees);
  if (roll < 0.8 && customers.length > 0) return rng.pick(customers);
  return undefined;
}

function toRequest(request: FuzzRequest): Request {
  const text = bodyText(request.body);
  let body: BodyInit | undefined = text;
  if (request.body.kind === 'stream') {
    const bytes = new TextEncoder().encode(request.body.text);
    body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024)
          controller.enqueue(bytes.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
  }
  const hasBody = body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(`${BASE}${urlPathOf(request)}`, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? body : undefined,
  });
}

async function send(
  fetch: FuzzOptions['fetch'],
  request: Request,
  timeoutMs: number,
  url: string,
): Promise<Observed> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const answer = (async () => {
    try {
      const response = await fetch(request);
      return { response, text: await response.text() };
    } catch (error) {
      return { error };
    }
  })();
  const outcome = await Promise.race([answer, timeout]);
  clearTimeout(timer);
  const elapsedMs = performance.now() - started;
  const base = { method: request.method, url, elapsedMs };
  if (outcome === 'timeout')
    return { ...base, status: 0, headers: new Headers(), text: '', timedOut: true };
  if ('error' in outcome) {
    // The server's fetch threw instead of answering: Bun.serve would send a 500.
    return {
      ...base,
      status: 500,
      headers: new Headers(),
      text: `threw ${String(outcome.error)}`,
      timedOut: false,
    };
  }
  return {
    ...base,
    status: outcome.response.status,
    headers: outcome.response.headers,
    text: outcome.text,
    timedOut: false,
  };
}

/** Remembers ids a 2xx answer revealed: Location headers, `id`-like fields, created path params. */
function harvest(
  state: State,
  operation: Operation,
  request: FuzzRequest,
  observed: Observed,
  trackedNames: Set<string>,
) {
  if (observed.status < 200 || observed.status >= 300) return;
  for (const cookie of observed.headers.getSetCookie()) {
    const pair = cookie.split(';')[0]!.trim();
    if (pair.includes('=') && !pair.endsWith('=')) state.pools.add('set-cookie', pair);
  }
  const location = observed.headers.get('location');
  if (location) {
    const segments = location.split('?')[0]!.split('/').filter(Boolean);
    if (segments.length >= 2)
      state.pools.add(
        `segment:${segments[segments.length - 2]}`,
        decodeURIComponent(segments[segments.length - 1]!),
      );
  }
  if (request.method === 'PUT' || request.method === 'POST') {
    for (const [name, encoded] of Object.entries(request.params)) {
      const segment = literalBefore(operation.template, name);
      try {
        if (segment) state.pools.add(`segment:${segment}`, decodeURIComponent(encoded));
      } catch {}
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(observed.text);
  } catch {
    return;
  }
  const collection = lastLiteral(operation.template);
  const walk = (node: unknown, depth: number) => {
    if (depth > 5 || node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (
        (typeof value === 'string' || typeof value === 'number') &&
        (trackedNames.has(key) || isIdLike(key))
      ) {
        state.pools.add(key, String(value));
        if (key === 'id' && collection) state.pools.add(`segment:${collection}`, String(value));
      } else walk(value, depth + 1);
    }
  };
  walk(body, 0);
}

function describe(request: FuzzRequest, url: string): string {
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== 'accept')
    .map(
      ([name, value]) =>
        `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…(${value.length})` : value}`,
    );
  const text = bodyText(request.body);
  const body =
    text === undefined
      ? ''
      : `\n    body${request.body.kind === 'stream' ? ' (streamed)' : ''}: ${text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text}`;
  const shownUrl = url.length > 300 ? `${url.slice(0, 300)}…(${url.length})` : url;
  return `${request.method} ${shownUrl}\n    ${headers.join('\n    ')}${body}`;
}

/**
 * Builds the schedule: slow operations (argon2 sign-in) the minimum, every
 * other documented operation an equal share of the rest, a little for the
 * extras. Slow is a yes/no on the warm-up's median, so a seed replays the same
 * schedule (an argon2 route takes ~50 ms, the others 1-3 ms).
 */
function schedule(operations: Operation[], slow: Set<number>, options: FuzzOptions, rng: Rng) {
  const minimum = options.minPerOperation ?? 200;
  const fast = operations.filter((o, i) => !o.synthetic && !slow.has(i)).length;
  const extrasShare = Math.max(10, Math.ceil((options.requests * 0.03) / SYNTHETIC.length));
  const rest = options.requests - extrasShare * SYNTHETIC.length - slow.size * minimum;
  const perOperation = Math.max(minimum, Math.ceil(rest / Math.max(1, fast)));
  const fastSlots: number[] = [];
  const slowSlots: number[] = [];
  operations.forEach((operation, index) => {
    const count = operation.synthetic ? extrasShare : slow.has(index) ? minimum : perOperation;
    for (let i = 0; i < count; i++) (slow.has(index) ? slowSlots : fastSlots).push(index);
  });
  // Slow requests travel in batches of their own, spread through the run: one
  // in a batch of fast ones would hold the whole batch up.
  const width = options.concurrency ?? 8;
  const fastBatches = chunk(rng.shuffle(fastSlots), width);
  const slowBatches = chunk(rng.shuffle(slowSlots), width);
  const every = Math.max(1, Math.floor(fastBatches.length / Math.max(1, slowBatches.length)));
  const batches: number[][] = [];
  fastBatches.forEach((batch, i) => {
    batches.push(batch);
    if ((i + 1) % every === 0 && slowBatches.length > 0) batches.push(slowBatches.shift()!);
  });
  batches.push(...slowBatches);
  return batches;
}

const chunk = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const docResponse = await options.fetch(
    new Request(`${BASE}/docs/json`, { headers: { accept: 'application/json' } }),
  );
  const document = (await docResponse.json()) as OpenApiDocument;
  const components = document.components?.schemas ?? {};
  const documented = operationsOf(document).filter(
    (o) => !options.only || options.only.test(o.key),
  );
  const operations = [
    ...documented,
    ...SYNTHETIC.filter((o) => !options.only || options.only.test(o.key)),
  ];
  const trackedNames = new Set(operations.flatMap((o) => o.pathParams.map((p) => p.name)));
  const state: State = {
    options,
    pools: new ValuePools(),
    resolveRef: (ref) =>
      ref.startsWith('#/components/schemas/')
        ? components[ref.slice('#/components/schemas/'.length)]
        : undefined,
    subjects: options.credentials.map((c) => c.sub),
  };
  for (const [key, values] of Object.entries(options.seeds ?? {}))
    for (const value of values) state.pools.add(key, value);

  const schemas = new ResponseSchemas(components);
  const report: FuzzReport = {
    seed: options.seed,
    sent: 0,
    elapsedMs: 0,
    routes: new Map(),
    findings: [],
    unsendable: 0,
    slow: [],
  };
  for (const operation of operations)
    report.routes.set(operation.key, {
      documented: !operation.synthetic,
      sent: 0,
      statuses: new Map(),
      undocumented: new Set(),
      elapsedMs: 0,
    });
  const employee = options.credentials.find((c) => c.aud === 'employee');

  // Warm-up: valid requests as an employee, writes first, so later requests find real ids.
  const order = [...operations.keys()].sort(
    (a, b) =>
      Number(operations[b]!.method === 'POST' || operations[b]!.method === 'PUT') -
      Number(operations[a]!.method === 'POST' || operations[a]!.method === 'PUT'),
  );
  const timeoutMs = options.timeoutMs ?? 5000;
  const warmLatencies = new Map<number, number[]>();

  const runOne = async (index: number, slot: number, warm: boolean) => {
    const operation = operations[slot]!;
    const rng = new Rng(mixSeed(options.seed, index));
    const credential = warm ? employee : pickCredential(options.credentials, rng);
    let request = validRequest(operation, state, rng, credential);
    if (operation.synthetic && operation.template === '/{unknown}') {
      request = {
        ...request,
        method: rng.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']),
        params: { unknown: rng.pick(UNKNOWN_PATHS) },
      };
    }
    if (!warm && rng.chance(0.8)) {
      const context: MutationContext = {
        rng,
        queryParams: operation.queryParams,
        hasBody: Boolean(operation.body),
        forgedAuthorizations: options.forgedAuthorizations,
      };
      request = mutate(request, context);
    }
    let built: Request;
    const url = urlPathOf(request);
    try {
      built = toRequest(request);
    } catch {
      report.unsendable++;
      return;
    }
    const observed = await send(options.fetch, built, timeoutMs, url);
    if (warm) warmLatencies.set(slot, [...(warmLatencies.get(slot) ?? []), observed.elapsedMs]);
    // A mutated method or path is another operation: check only the generic rules then.
    const sameOperation =
      !request.retargeted && request.method === operation.method && !operation.synthetic;
    const problems = checkResponse(
      sameOperation ? operation : undefined,
      observed,
      schemas,
      options,
    );
    const stats = report.routes.get(operation.key)!;
    stats.sent++;
    stats.elapsedMs += observed.elapsedMs;
    stats.statuses.set(observed.status, (stats.statuses.get(observed.status) ?? 0) + 1);
    // A success the route does not document has no schema to check against.
    const success = observed.status >= 200 && observed.status < 300;
    if (sameOperation && success && !operation.responses[String(observed.status)]) {
      stats.undocumented.add(observed.status);
    }
    report.sent++;
    if (problems.length > 0) {
      report.findings.push({
        route: operation.key,
        mutations: request.mutations,
        request: describe(request, url),
        status: observed.status,
        response: observed.text.length > 400 ? `${observed.text.slice(0, 400)}…` : observed.text,
        problems,
      });
    }
    return { operation, request, observed };
  };

  let sentIndex = 0;
  const sendBatch = async (batch: number[], warm: boolean) => {
    const first = sentIndex;
    sentIndex += batch.length;
    const results = await Promise.all(
      batch.map((slot, offset) => runOne(first + offset, slot, warm)),
    );
    // Harvested in index order after the batch, so a seed replays the same choices.
    for (const result of results)
      if (result) harvest(state, result.operation, result.request, result.observed, trackedNames);
  };
  // One at a time, so each operation's latency is its own.
  const warmUps = options.warmUpRequests ?? 3;
  for (const slot of order) for (let i = 0; i < warmUps; i++) await sendBatch([slot], true);
  const slow = new Set<number>();
  for (const [index, operation] of operations.entries()) {
    const latency = median(warmLatencies.get(index) ?? []);
    if (!operation.synthetic && latency > (options.slowMs ?? 20)) {
      slow.add(index);
      report.slow.push(`${operation.key} (${Math.round(latency)} ms)`);
    }
  }
  for (const batch of schedule(operations, slow, options, new Rng(options.seed))) {
    await sendBatch(batch, false);
  }
  report.elapsedMs = performance.now() - started;
  return report;
}

/** The per-route table, then the first `limit` distinct findings. */
export function formatReport(report: FuzzReport, limit = 20): string {
  const rows = [...report.routes.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(5, ...rows.map(([key]) => key.length));
  const lines = [
    `fuzz: seed ${report.seed} (FUZZ_SEED=${report.seed} replays it), ${report.sent} requests in ${(report.elapsedMs / 1000).toFixed(1)} s, ${report.findings.length} findings${report.unsendable ? `, ${report.unsendable} unsendable` : ''}`,
    `${'route'.padEnd(width)}  ${'sent'.padStart(6)}  ${'ms/req'.padStart(6)}  statuses`,
  ];
  for (const [key, stats] of rows) {
    const statuses = [...stats.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    const perRequest = stats.sent ? (stats.elapsedMs / stats.sent).toFixed(2) : '-';
    lines.push(
      `${key.padEnd(width)}  ${String(stats.sent).padStart(6)}  ${perRequest.padStart(6)}  ${statuses}`,
    );
  }
  if (report.slow.length > 0) {
    lines.push(`slow, so given the minimum share: ${report.slow.join(', ')}`);
  }
  // Not a failure: a hint for the route's docs.
  const undocumented = rows
    .filter(([, stats]) => stats.documented && stats.undocumented.size > 0)
    .map(([key, stats]) => `${key} ${[...stats.undocumented].sort((a, b) => a - b).join(',')}`);
  if (undocumented.length > 0) {
    lines.push(`successes the route does not document: ${undocumented.join('; ')}`);
  }
  const seen = new Set<string>();
  const distinct = report.findings.filter((finding) => {
    const signature = `${finding.route} ${finding.status} ${finding.problems.join('; ').replace(/\d+/g, 'N')}`;
    if (seen.has(signature)) return false;
    seen.add(signature);
    return true;
  });
  if (distinct.length > 0)
    lines.push(
      '',
      `findings (first ${Math.min(limit, distinct.length)} of ${distinct.length} distinct):`,
    );
  for (const finding of distinct.slice(0, limit)) {
    lines.push(
      `- ${finding.route} [${finding.mutations.join(', ') || 'valid'}] → ${finding.status}: ${finding.problems.join('; ')}`,
      `    ${finding.request}`,
      `    response: ${finding.response}`,
    );
  }
  return lines.join('\n');
}
