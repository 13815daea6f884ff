/**
 * The one error type of the service. Domains and the transport throw a
 * `DomainError` with a code from this closed list; `src/api/errors` maps each
 * code, exhaustively, to a status and renders it as a problem body or, under
 * the customer API, as a Laravel-style body (docs/errors.md).
 */
export type ErrorCode =
  // The request itself
  | 'request.malformed'
  | 'request.uri_too_long'
  | 'request.body_too_large'
  | 'request.unsupported_media_type'
  | 'request.invalid'
  | 'route.not_found'
  | 'route.method_not_allowed'
  | 'idempotency.key_invalid'
  | 'idempotency.in_progress'
  | 'resource.changed'
  // Who is calling
  | 'auth.unauthenticated'
  | 'auth.forbidden'
  | 'auth.cross_origin'
  | 'auth.insecure_transport'
  | 'auth.too_many_attempts'
  | 'auth.too_many_requests'
  | 'auth.reauthentication_required'
  | 'rate_limit.exceeded'
  // Listings
  | 'query.invalid'
  | 'property.not_found'
  | 'property.archived'
  | 'property.not_archived'
  | 'property.neighbourhood_mismatch'
  | 'unit.not_found'
  | 'unit.limit_reached'
  | 'unit.deleted'
  | 'unit.not_rentable'
  | 'unit.last_live'
  | 'neighbourhood.in_use'
  | 'neighbourhood.not_found'
  | 'quota.properties_reached'
  | 'quota.units_reached'
  | 'additional_data.not_found'
  | 'multi_listing_unit.not_found'
  // Events and webhooks
  | 'events.cursor_invalid'
  | 'events.cursor_expired'
  | 'events.too_many_waits'
  | 'webhook.not_found'
  | 'webhook.delivery_not_found'
  | 'webhook.limit_reached'
  // Static pages
  | 'page.not_found'
  | 'page.slug_mismatch'
  // Customer API
  | 'plan.not_found'
  // Accounts and passkeys
  | 'account.email_taken'
  | 'sign_up.closed'
  | 'account.not_found'
  | 'account.required'
  | 'account.last_employee'
  | 'credentials.invalid'
  | 'passkey.not_found'
  | 'session.not_found'
  | 'passkey.ceremony_failed'
  | 'passkey.already_registered'
  | 'password_reset.invalid'
  | 'account.unverified'
  | 'email_link.invalid'
  | 'email.already_verified'
  // Operations
  | 'job.not_found'
  | 'job.running'
  | 'backup.not_found'
  | 'backup.name_invalid'
  | 'backup.failed'
  | 'service.stopping'
  | 'service.unavailable'
  | 'service.busy'
  // The database's storage is full or read-only: the write was not stored
  | 'storage.full'
  | 'internal';

/**
 * One rule an input field broke: where (its path in the input), which rule
 * and the sentence saying so. The transport renders a list of them in the
 * body family of the route (src/api/field-failures.ts).
 */
export interface FieldFailure {
  path: readonly (string | number)[];
  rule: string;
  message: string;
}

/**
 * One request parameter a 400 refused and why, worded to follow its name:
 * `{name: 'itemsPerPage', reason: 'must be an integer from 1 to 100 (got "abc")'}`.
 * The problem body lists them as `invalidParams` (docs/errors.md).
 */
export interface InvalidParam {
  name: string;
  reason: string;
}

/** A rate-limit window as the customer API reports it in a 429. */
export interface RateLimitWindow {
  window: string;
  limit: number;
  used: number;
  remaining: number;
  resets_in_seconds: number;
  resets_at: string;
}

export interface ErrorDetails {
  /** Replaces the fixed detail of the status (e.g. a page naming its slug). */
  detail?: string;
  fields?: readonly FieldFailure[];
  /** The parameters a 400 refused (src/kernel/invalid-params.ts words them from zod issues). */
  invalidParams?: readonly InvalidParam[];
  retryAfterSeconds?: number;
  /** The exhausted window of a customer-API 429. */
  rateLimit?: RateLimitWindow;
  /** The methods a path answers, for a 405's Allow header. */
  allow?: readonly string[];
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly details: ErrorDetails = {},
  ) {
    super(details.detail ?? code);
    this.name = 'DomainError';
  }
}

/** `new DomainError(code, details)`, for `throw fail(...)` and `?? fail(...)` alike. */
export const fail = (code: ErrorCode, details?: ErrorDetails): DomainError =>
  new DomainError(code, details);

/** Whether `error` is a `DomainError`, optionally of one code. */
export const isDomainError = (error: unknown, code?: ErrorCode): error is DomainError =>
  error instanceof DomainError && (code === undefined || error.code === code);

/** A 422 naming one field: `fieldError(['location', 'cityId'], 'notInArray', '...')`. */
export const fieldError = (
  path: readonly (string | number)[],
  rule: string,
  message: string,
): DomainError => fail('request.invalid', { fields: [{ path, rule, message }] });
