import { errorOf, HttpError, NetworkError, RateLimitError, TimeoutError } from './errors.js';
import {
  DEFAULT_JITTER,
  DEFAULT_MAX_RETRY_DELAY,
  DEFAULT_RATE_LIMIT_DELAYS,
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
  /**
   * Waits in ms before the retries of a network error, a timeout, 502, 503 or
   * 504 (default 200 ms, 500 ms, 1 s: three retries); `false` turns every
   * retry off, 429s included.
   */
  retryDelays?: readonly number[] | false;
  /** Waits in ms before the retries of a 429 (default 30 s, 60 s, 2 min, 5 min: the service's guidance). */
  rateLimitDelays?: readonly number[];
  /**
   * The longest wait before a retry (default 5 min). A `Retry-After` asking
   * for more is not waited for: the error is thrown at once with its `retryAfter`.
   */
  maxRetryDelayMs?: number;
  /** Jitter as a fraction of each delay (default 0.1). */
  jitter?: number;
  /**
   * How long each attempt may take, until its whole answer is read (default
   * 30 s); past it the attempt is aborted and counts as a network error
   * (`TimeoutError`). `false`: no limit.
   */
  timeoutMs?: number | false;
  /** Called before each wait for a retry, e.g. to log it; what it throws ends the call. */
  onRetry?: (retry: RetryEvent) => void;
  /** Send an Idempotency-Key with every POST the service accepts one on (see `idempotent`). */
  idempotentPosts?: boolean;
}

/** What `onRetry` is told before the client waits and sends a request again. */
export interface RetryEvent {
  /** The attempt that failed: 1 for the first request. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** The answer's status (429, 502, 503, 504); absent after a network error or timeout. */
  status?: number;
  /** The `NetworkError` or `TimeoutError` of the failed attempt; absent when an answer came. */
  error?: NetworkError;
  method: string;
  url: string;
}

/** Per-call options every method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** `false`: no retries for this call (e.g. an interactive sign-in that should fail fast). */
  retry?: boolean;
  /** This call's limit per attempt, instead of the client's `timeoutMs`. */
  timeoutMs?: number | false;
}

/** Per-call options of a read that can answer 304. */
export interface ConditionalReadOptions extends CallOptions {
  /** The ETag of a copy held: a 304 answer means it is still current. */
  ifNoneMatch?: string;
}

/**
 * Per-call options of a POST under /listings or /api/v1/admin, where the
 * service replays the first answer to a repeated Idempotency-Key: with a key
 * such a POST is retried after a network error, a timeout, 502, 503 or 504
 * like a GET.
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
  /** A success answers the `Response` itself, its body unread (a file download). */
  raw?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/**
 * A gateway or the service could not handle the request just now. A write
 * behind a 502 or 504 may still have been done: only safe requests repeat.
 */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);
const DEFAULT_TIMEOUT = 30_000;

/** POSTs the service stores and replays by Idempotency-Key (src/api/idempotency.ts). */
export const acceptsIdempotencyKey = (method: string, path: string) =>
  method === 'POST' && (path.startsWith('/listings/') || path.startsWith('/api/v1/admin/'));

/** A conditional read: the answer and its ETag, or 304 `notModified` (the copy held is current). */
export type Conditional<T> =
  | { notModified: false; etag: string | null; body: T }
  | { notModified: true; etag: string | null };

/** A conditional GET of `path`: `ifNoneMatch` sent as If-None-Match. */
export async function conditionalRead<T>(
  http: Transport,
  path: string,
  { ifNoneMatch, ...options }: ConditionalReadOptions & Pick<RequestOptions, 'query'> = {},
): Promise<Conditional<T>> {
  const headers = { ...options.headers, ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) };
  return conditional(await http.request<T>('GET', path, { ...options, headers }));
}

export function conditional<T>(response: ApiResponse<T>): Conditional<T> {
  const etag = response.headers.get('etag');
  return response.status === 304
    ? { notModified: true, etag }
    : { notModified: false, etag, body: response.body };
}

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

type Attempt = { response: Response; body: unknown } | { failure: unknown };

const hasData = (body: unknown) =>
  typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);

/**
 * Sends requests with JSON `Accept`/`Content-Type` headers, the bearer token and
 * the service's retry guidance; turns error answers into typed exceptions.
 */
export class Transport {
  readonly baseUrl: string;
  /** The client's limit per attempt (`ClientOptions.timeoutMs`). */
  readonly timeoutMs: number | false;
  private token: TokenSource | undefined;
  private readonly fetch: (input: Request) => Promise<Response>;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly policies: Record<'transient' | 'rateLimit', RetryPolicy>;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT;
    this.fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.sleep = options.sleep ?? realSleep;
    const transient =
      options.retryDelays === false ? [] : (options.retryDelays ?? DEFAULT_RETRY_DELAYS);
    const off = options.retryDelays === false;
    const shared = {
      jitter: options.jitter ?? DEFAULT_JITTER,
      random: options.random ?? Math.random,
      maxDelay: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY,
    };
    this.policies = {
      transient: { ...shared, delays: transient },
      rateLimit: {
        ...shared,
        delays: off ? [] : (options.rateLimitDelays ?? DEFAULT_RATE_LIMIT_DELAYS),
      },
    };
  }

  setToken(token: TokenSource | undefined): void {
    this.token = token;
  }

  /** The limit of a long poll held open `waitSeconds` by the service: the usual one on top. */
  longPollTimeout(waitSeconds: number, timeoutMs = this.timeoutMs): number | false {
    return timeoutMs === false ? false : timeoutMs + waitSeconds * 1000;
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
   * One attempt: the answer and its body read, or what went wrong on the
   * way. The body is read under the same signal, so the timeout also covers
   * an answer that stalls halfway.
   */
  private async attempt(request: Request, raw: boolean | undefined): Promise<Attempt> {
    try {
      const response = await this.fetch(request);
      const body = raw && response.ok ? response : await bodyOf(response);
      return { response, body };
    } catch (failure) {
      return { failure };
    }
  }

  /**
   * One call with its retries: a 429 is always retried (the service did not
   * act on it); a network error, a timeout, 502, 503 or 504 only when
   * repeating the call is safe — GET/HEAD/PUT/DELETE, or a POST carrying an
   * Idempotency-Key.
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
    const timeoutMs = init.timeoutMs === undefined ? this.timeoutMs : init.timeoutMs;
    const delays: number[] = [];
    const retries = { transient: 0, rateLimit: 0 };

    /** Waits before the next attempt when the schedule allows one; false when it does not. */
    const retried = async (
      kind: keyof Transport['policies'],
      retryAfter: number | null,
      event: Omit<RetryEvent, 'delayMs' | 'method' | 'url'>,
    ) => {
      const policy = this.policies[kind];
      if (init.retry === false || retries[kind] >= policy.delays.length) return false;
      const delayMs = retryDelay(++retries[kind], retryAfter, policy);
      if (delayMs === null) return false;
      delays.push(delayMs);
      this.options.onRetry?.({ ...event, delayMs, method, url });
      await this.sleep(delayMs, init.signal);
      return true;
    };

    for (let attempt = 1; ; attempt++) {
      const timer = timeoutMs === false ? undefined : AbortSignal.timeout(timeoutMs);
      const signal =
        timer && init.signal ? AbortSignal.any([init.signal, timer]) : (timer ?? init.signal);
      const outcome = await this.attempt(
        new Request(url, { method, headers, body, signal }),
        init.raw,
      );
      if ('failure' in outcome) {
        // The caller's own abort is not a failure to report or retry.
        if (init.signal?.aborted) throw outcome.failure;
        const error =
          timer?.aborted && timeoutMs !== false
            ? new TimeoutError(attempt, [...delays], timeoutMs, outcome.failure)
            : new NetworkError(attempt, [...delays], outcome.failure);
        if (safeToRepeat && (await retried('transient', null, { attempt, error }))) continue;
        throw error;
      }
      const { response, body: parsed } = outcome;
      const { status } = response;
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      const kind =
        status === 429
          ? 'rateLimit'
          : TRANSIENT_STATUSES.has(status) && safeToRepeat
            ? 'transient'
            : null;
      if (kind && (await retried(kind, retryAfter, { attempt, status }))) continue;
      if (status === 429) {
        throw new RateLimitError(
          attempt,
          delays,
          rateLimitOf(parsed),
          retryAfter,
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
