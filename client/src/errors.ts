import type { RateLimitRecord } from './types.js';

/** Any answer outside 2xx (and not a documented empty result): the status and the parsed body. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    /** The parsed JSON body, or the raw text when it was not JSON. */
    readonly body: unknown,
    readonly headers: Headers,
    message = `HTTP ${status}`,
  ) {
    super(message);
  }
}

/** A problem+json answer `{type, title, status, detail}`: listings, static pages, /auth, /admin. */
export class ProblemError extends HttpError {
  override name = 'ProblemError';
  readonly title: string;
  readonly detail: string;
  readonly type: string | undefined;
  /** On 422: one key per failed field (nested for nested objects), rule name → message. */
  readonly validationMessages: Record<string, unknown> | undefined;
  /** On 400: each refused parameter (query, path or body field) and why, when the service could name one. */
  readonly invalidParams: readonly InvalidParam[] | undefined;

  constructor(status: number, body: ProblemBody, headers: Headers) {
    super(status, body, headers, `${status} ${body.title}: ${body.detail}`);
    this.title = body.title;
    this.detail = body.detail;
    this.type = body.type;
    this.validationMessages = body.validationMessages;
    this.invalidParams = body.invalidParams;
  }
}

/** A Laravel-style answer of the customer API (`/api/v1`): `{message}` or `{message, errors}`. */
export class ApiError extends HttpError {
  override name = 'ApiError';
  readonly errors: Record<string, string[]> | undefined;

  constructor(
    status: number,
    body: { message: string; errors?: Record<string, string[]> },
    headers: Headers,
  ) {
    super(status, body, headers, `${status} ${body.message}`);
    this.errors = body.errors;
  }
}

/** The customer API's error class under the name its body style is known by. */
export { ApiError as LaravelError };

/**
 * 429 after the retry schedule ran out (the guidance is to stop and report
 * then): how many requests were sent, the waits between them and the last
 * `rate_limit` record the service gave (null when a 429 carried none, e.g.
 * the sign-in guessing protection's problem body).
 */
export class RateLimitError extends HttpError {
  override name = 'RateLimitError';
  constructor(
    /** Requests sent, the first one included. */
    readonly attempts: number,
    /** Milliseconds waited before each retry. */
    readonly delays: readonly number[],
    readonly rateLimit: RateLimitRecord | null,
    /** The last `Retry-After`, in seconds, when the service sent one. */
    readonly retryAfter: number | null,
    body: unknown,
    headers: Headers,
  ) {
    super(429, body, headers, rateLimitMessage(attempts, delays, rateLimit));
  }
}

/** The request never got an answer (connection refused or reset, DNS, TLS) after its retries. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    /** Requests sent, the first one included. */
    readonly attempts: number,
    /** Milliseconds waited before each retry. */
    readonly delays: readonly number[],
    cause: unknown,
    message = `Network error after ${attempts} attempt(s): ${String(cause)}`,
  ) {
    super(message, { cause });
  }
}

/**
 * No complete answer within the request timeout (`timeoutMs`), on the last
 * attempt. A `NetworkError` too: either way the service's answer, if any, is
 * unknown, and a call is retried after one only when repeating it is safe.
 */
export class TimeoutError extends NetworkError {
  override name = 'TimeoutError';
  constructor(
    attempts: number,
    delays: readonly number[],
    /** The limit each attempt had, in milliseconds. */
    readonly timeoutMs: number,
    cause: unknown,
  ) {
    super(attempts, delays, cause, `No answer within ${timeoutMs} ms, ${attempts} attempt(s)`);
  }
}

export interface ProblemBody {
  type?: string;
  title: string;
  status: number;
  detail: string;
  validationMessages?: Record<string, unknown>;
  invalidParams?: InvalidParam[];
}

/** One entry of a 400's `invalidParams`: the parameter as the request wrote it and the reason. */
export interface InvalidParam {
  name: string;
  reason: string;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

function rateLimitMessage(
  attempts: number,
  delays: readonly number[],
  record: RateLimitRecord | null,
): string {
  const waited = delays.length > 0 ? ` (waited ${delays.map(seconds).join(', ')})` : '';
  const window = record
    ? `; ${record.window} window: ${record.used}/${record.limit} used, resets in ${record.resets_in_seconds} s at ${record.resets_at}`
    : '';
  const sent = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return `Rate limited: gave up after ${sent}${waited}${window}`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The typed exception for an error answer, by the shape of its body. */
export function errorOf(status: number, body: unknown, headers: Headers): HttpError {
  if (
    isObject(body) &&
    typeof body.title === 'string' &&
    typeof body.detail === 'string' &&
    typeof body.status === 'number'
  ) {
    return new ProblemError(status, body as unknown as ProblemBody, headers);
  }
  if (isObject(body) && typeof body.message === 'string') {
    const errors = isObject(body.errors) ? (body.errors as Record<string, string[]>) : undefined;
    return new ApiError(status, { message: body.message, errors }, headers);
  }
  return new HttpError(status, body, headers);
}
