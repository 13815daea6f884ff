import { DomainError, type ErrorCode } from '@/kernel/errors';
import type { Family } from './docs/components';
import { laravelErrorsOf, validationMessagesOf } from './field-failures';
import { LARAVEL_MESSAGES, laravelValidationMessage, problemOf } from './problem';

/** The status of every error code: exhaustive, so a new code must be given one here. */
export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  'request.malformed': 400,
  'request.uri_too_long': 414,
  'request.body_too_large': 413,
  'request.unsupported_media_type': 415,
  'request.invalid': 422,
  'route.not_found': 404,
  'route.method_not_allowed': 405,
  'idempotency.key_invalid': 400,
  'idempotency.in_progress': 409,
  'resource.changed': 412,
  'auth.unauthenticated': 401,
  'auth.forbidden': 403,
  'auth.cross_origin': 403,
  'auth.insecure_transport': 403,
  'auth.too_many_attempts': 429,
  'auth.too_many_requests': 429,
  'auth.reauthentication_required': 403,
  'rate_limit.exceeded': 429,
  'query.invalid': 400,
  'property.not_found': 404,
  'property.archived': 409,
  'property.not_archived': 409,
  'property.neighbourhood_mismatch': 409,
  'unit.not_found': 404,
  'unit.limit_reached': 409,
  'unit.deleted': 409,
  'unit.not_rentable': 409,
  'unit.last_live': 409,
  'neighbourhood.in_use': 409,
  'neighbourhood.not_found': 404,
  'quota.properties_reached': 409,
  'quota.units_reached': 409,
  'additional_data.not_found': 404,
  'multi_listing_unit.not_found': 404,
  'events.cursor_invalid': 400,
  'events.cursor_expired': 410,
  'events.too_many_waits': 429,
  'webhook.not_found': 404,
  'webhook.delivery_not_found': 404,
  'webhook.limit_reached': 409,
  'page.not_found': 404,
  'page.slug_mismatch': 400,
  'plan.not_found': 404,
  'account.email_taken': 409,
  'sign_up.closed': 403,
  'account.not_found': 404,
  'account.required': 403,
  'account.last_employee': 409,
  'credentials.invalid': 401,
  'passkey.not_found': 404,
  'session.not_found': 404,
  'passkey.ceremony_failed': 400,
  'passkey.already_registered': 409,
  'password_reset.invalid': 400,
  'account.unverified': 403,
  'email_link.invalid': 400,
  'email.already_verified': 409,
  'job.not_found': 404,
  'job.running': 409,
  'backup.not_found': 404,
  'backup.name_invalid': 400,
  'backup.failed': 500,
  'service.stopping': 503,
  'service.unavailable': 503,
  'service.busy': 503,
  'storage.full': 507,
  internal: 500,
};

export const statusOf = (error: DomainError): number => STATUS_OF[error.code];

function json(body: unknown, status: number, contentType: string, extra?: Record<string, string>) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': contentType, ...extra },
  });
}

/**
 * The response of an error: its status, body (docs/errors.md) in the family
 * the route group declared (`errorFamiliesOf`), and Allow / Retry-After headers.
 * The customer API's `{message}` has no `invalidParams`: its 400 stays Laravel's.
 */
export function renderError(error: DomainError, family: Family): Response {
  const status = statusOf(error);
  const { detail, fields, invalidParams, retryAfterSeconds, rateLimit, allow } = error.details;
  const headers: Record<string, string> = {};
  if (allow) headers.allow = allow.join(', ');
  if (retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  if (family === 'customer') {
    const errors = fields && laravelErrorsOf(fields);
    const body = rateLimit
      ? { message: LARAVEL_MESSAGES[429], rate_limit: rateLimit }
      : errors
        ? { message: laravelValidationMessage(errors), errors }
        : { message: LARAVEL_MESSAGES[status] ?? LARAVEL_MESSAGES[500] };
    return json(body, status, 'application/json', headers);
  }
  const messages = fields ? validationMessagesOf(fields) : undefined;
  const problem = problemOf(status, fields ? undefined : detail, messages, invalidParams);
  return json(problem, status, 'application/problem+json', headers);
}

/** The generic 500, for failures that are not domain errors. */
export const INTERNAL = new DomainError('internal');
