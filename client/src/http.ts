import { errorOf, HttpError, NetworkError, RateLimitError } from './errors.js';
import {
  DEFAULT_JITTER,
  DEFAULT_RETRY_DELAYS,
  type RetryPolicy,
  realSleep,
  retryAfterSeconds,
  retryDelay,
} from './retry.js';
import type { Created, RateLimitRecord } from './types.js';

export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface ClientOptions {
  /**
   * Where the service answers, e.g. `https://listings.example.com` (the mount
   * points /listings, /content, /api/v1, /auth, /admin are added).
   */
  baseUrl: string;
  /** A bearer token, or a function asked before every request. */
  token?: TokenSource;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Defaults to the global `fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Waits between retries; tests inject one that returns at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter; defaults to `Math.random`. */
  random?: () => number;
  /** Retry schedule in ms (default 30 s, 60 s, 2 min, 5 min); `false` turns retries off. */
  retryDelays?: readonly number[] | false;
  /** Jitter as a fraction of each delay (default 0.1). */
  jitter?: number;
  /** Send an Idempotency-Key with every POST the service accepts one on (see `idempotent`). */
  idempotentPosts?: boolean;
}

/** Per-call options every method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** `false`: no retries for this call (e.g. an interactive sign-in that should fail fast). */
  retry?: boolean;
}

/**
 * Per-call options of a POST under /listings or /api/v1/admin, where the
 * service replays the first answer to a repeated Idempotency-Key: with a key
 * such a POST is retried after a network error or 503 like a GET.
 */
export interface IdempotentCallOptions extends CallOptions {
  /** Generate an Idempotency-Key for this call (a fresh UUID, reused by its retries). */
  idempotent?: boolean;
  /** Use this Idempotency-Key (e.g. one kept across a process restart). */
  idempotencyKey?: string;
}

export interface RequestOptions extends IdempotentCallOptions {
  query?: object;
  body?: unknown;
  /** A 404 that still carries a `data` array is the documented empty result, not an error. */
  emptyOn404?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** POSTs the service stores and replays by Idempotency-Key (src/api/idempotency.ts). */
export const acceptsIdempotencyKey = (method: string, path: string) =>
  method === 'POST' && (path.startsWith('/listings/') || path.startsWith('/api/v1/admin/'));

/**
 * Query string of the list conventions: arrays as repeated keys
 * (`k=a&k=b`), arrays of objects as `k[i][field]`, booleans and numbers as text.
 */
export function queryString(query: object | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value)) {
      params.append(key, String(value));
      continue;
    }
    for (const [index, item] of (value as unknown[]).entries()) {
      if (typeof item !== 'object' || item === null) {
        params.append(key, String(item));
        continue;
      }
      for (const [field, part] of Object.entries(item)) {
        if (part !== undefined && part !== null)
          params.append(`${key}[${index}][${field}]`, String(part));
      }
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** `encodeURIComponent` for one path segment. */
export const segment = (value: string | number) => encodeURIComponent(String(value));

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const rateLimitOf = (body: unknown): RateLimitRecord | null => {
  const record = (body as { rate_limit?: unknown } | null)?.rate_limit;
  return typeof record === 'object' && record !== null ? (record as RateLimitRecord) : null;
};

const hasData = (body: unknown) =>
  typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);

/**
 * Sends requests with JSON `Accept`/`Content-Type` headers, the bearer token and
 * the service's retry guidance; turns error answers into typed exceptions.
 */
export class Transport {
  readonly baseUrl: string;
  private token: TokenSource | undefined;
  private readonly fetch: (input: Request) => Promise<Response>;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.sleep = options.sleep ?? realSleep;
    this.policy = {
      delays: options.retryDelays === false ? [] : (options.retryDelays ?? DEFAULT_RETRY_DELAYS),
      jitter: options.jitter ?? DEFAULT_JITTER,
      random: options.random ?? Math.random,
    };
  }

  setToken(token: TokenSource | undefined): void {
    this.token = token;
  }

  private async bearer(): Promise<string | undefined> {
    return typeof this.token === 'function' ? await this.token() : this.token;
  }

  private async headersFor(method: string, path: string, init: RequestOptions) {
    const headers = new Headers({ accept: 'application/json', ...this.options.headers });
    const token = await this.bearer();
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    const wantsKey =
      init.idempotencyKey !== undefined ||
      init.idempotent === true ||
      (this.options.idempotentPosts === true && acceptsIdempotencyKey(method, path));
    if (wantsKey) {
      if (!acceptsIdempotencyKey(method, path)) {
        throw new TypeError(
          `${method} ${path}: the service takes an Idempotency-Key only on POSTs under /listings and /api/v1/admin`,
        );
      }
      headers.set('idempotency-key', init.idempotencyKey ?? crypto.randomUUID());
    }
    for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
    return headers;
  }

  /**
   * One call with its retries: a 429 is always retried (the service did not
   * act on it); a network error or 503 only when repeating the call is safe —
   * GET/PUT/DELETE, or a POST carrying an Idempotency-Key.
   */
  async request<T>(
    method: string,
    path: string,
    init: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const url = `${this.baseUrl}${path}${queryString(init.query)}`;
    const headers = await this.headersFor(method, path, init);
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const safeToRepeat = IDEMPOTENT_METHODS.has(method) || headers.has('idempotency-key');
    const delays: number[] = [];

    const backOff = async (retryAfter: number | null) => {
      const delay = retryDelay(delays.length + 1, retryAfter, this.policy);
      delays.push(delay);
      await this.sleep(delay, init.signal);
    };
    const canRetry = () => init.retry !== false && delays.length < this.policy.delays.length;

    for (;;) {
      let response: Response;
      try {
        response = await this.fetch(
          new Request(url, { method, headers, body, signal: init.signal }),
        );
      } catch (error) {
        if (init.signal?.aborted || !safeToRepeat || !canRetry()) {
          if (init.signal?.aborted) throw error;
          throw new NetworkError(delays.length + 1, delays, error);
        }
        await backOff(null);
        continue;
      }
      const status = response.status;
      const retryable = status === 429 || (status === 503 && safeToRepeat);
      if (retryable && canRetry()) {
        await response.body?.cancel();
        await backOff(retryAfterSeconds(response.headers.get('retry-after')));
        continue;
      }
      const parsed = await bodyOf(response);
      if (status === 429) {
        throw new RateLimitError(
          delays.length + 1,
          delays,
          rateLimitOf(parsed),
          retryAfterSeconds(response.headers.get('retry-after')),
          parsed,
          response.headers,
        );
      }
      if (status < 400 || (status === 404 && init.emptyOn404 && hasData(parsed))) {
        return { status, headers: response.headers, body: parsed as T };
      }
      throw errorOf(status, parsed, response.headers);
    }
  }

  async json<T>(method: string, path: string, init?: RequestOptions): Promise<T> {
    return (await this.request<T>(method, path, init)).body;
  }

  /** A call answered 204 (or any body the caller does not need). */
  async send(method: string, path: string, init?: RequestOptions): Promise<void> {
    await this.request(method, path, init);
  }

  /** A 201 answered with `Location` and no body. */
  async create(method: string, path: string, init?: RequestOptions): Promise<Created> {
    const { status, headers, body } = await this.request(method, path, init);
    const location = headers.get('location');
    if (location === null) throw new HttpError(status, body, headers, 'Missing Location header');
    const id = decodeURIComponent(location.split('?')[0]!.split('/').pop() ?? '');
    return { location, id };
  }
}
