import { authApi } from './accounts.js';
import { operationsApi } from './admin.js';
import { staticPagesApi } from './content.js';
import { customerApi } from './customer.js';
import { eventsApi } from './events.js';
import { type ClientOptions, type TokenSource, Transport } from './http.js';
import { listingsApi } from './listings.js';
import { usersApi } from './users.js';
import { webhooksApi } from './webhooks.js';

/**
 * A typed client of the listings service: one namespace per API, retries as
 * the service's retry guidance advises (docs/customer-api.md, Retry guidance)
 * and of failures on the way when repeating is safe, a timeout per attempt,
 * error answers as typed exceptions.
 */
export function createClient(options: ClientOptions) {
  const http = new Transport(options);
  const { health, jobs, backups, audit, webhookSummary } = operationsApi(http);
  return {
    listings: { ...listingsApi(http), events: eventsApi(http) },
    webhooks: webhooksApi(http),
    staticPages: staticPagesApi(http),
    auth: authApi(http),
    customer: customerApi(http),
    admin: { jobs, backups, audit, webhookSummary, users: usersApi(http) },
    health,
    /** Replace the bearer token (e.g. with `accessToken` after `auth.signIn`). */
    setToken: (token: TokenSource | undefined) => http.setToken(token),
    /** Any other call, with the same headers, retries and errors. */
    request: http.request.bind(http),
  };
}

export type ListingsServiceClient = ReturnType<typeof createClient>;

export type { ConditionalOptions, PageReadOptions } from './content.js';
export {
  ApiError,
  HttpError,
  LaravelError,
  NetworkError,
  ProblemError,
  RateLimitError,
  TimeoutError,
} from './errors.js';
export type { EventFollowOptions } from './events.js';
export type {
  ApiResponse,
  CallOptions,
  ClientOptions,
  Conditional,
  ConditionalReadOptions,
  IdempotentCallOptions,
  RequestOptions,
  RetryEvent,
  TokenSource,
} from './http.js';
export { acceptsIdempotencyKey, queryString, Transport } from './http.js';
export type { PropertyWriteOptions } from './listings.js';
export type { MirrorBatch, MirrorFilters, MirrorOptions } from './mirror.js';
export type { EnvelopePage, HalPage } from './pagination.js';
export { envelopeItems, envelopePages, halItems, halPages } from './pagination.js';
export {
  DEFAULT_JITTER,
  DEFAULT_MAX_RETRY_DELAY,
  DEFAULT_RATE_LIMIT_DELAYS,
  DEFAULT_RETRY_DELAYS,
  retryAfterSeconds,
  retryDelay,
} from './retry.js';
export type * from './types.js';
export type { VerifyOptions, WebhookPayload } from './verify-webhook.js';
export { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';
