import { authApi } from './accounts';
import { operationsApi } from './admin';
import { staticPagesApi } from './content';
import { customerApi } from './customer';
import { type ClientOptions, type TokenSource, Transport } from './http';
import { listingsApi } from './listings';

/**
 * A typed client of the listings service: one namespace per API, retries as
 * the service's retry guidance advises (README, Retry guidance), error answers as typed exceptions.
 */
export function createClient(options: ClientOptions) {
  const http = new Transport(options);
  const { health, jobs } = operationsApi(http);
  return {
    listings: listingsApi(http),
    staticPages: staticPagesApi(http),
    auth: authApi(http),
    customer: customerApi(http),
    admin: { jobs },
    health,
    /** Replace the bearer token (e.g. with `accessToken` after `auth.signIn`). */
    setToken: (token: TokenSource | undefined) => http.setToken(token),
    /** Any other call, with the same headers, retries and errors. */
    request: http.request.bind(http),
  };
}

export type ListingsServiceClient = ReturnType<typeof createClient>;

export type { Conditional, ConditionalOptions, PageReadOptions } from './content';
export {
  ApiError,
  HttpError,
  LaravelError,
  NetworkError,
  ProblemError,
  RateLimitError,
} from './errors';
export type {
  ApiResponse,
  CallOptions,
  ClientOptions,
  IdempotentCallOptions,
  RequestOptions,
  TokenSource,
} from './http';
export { acceptsIdempotencyKey, queryString, Transport } from './http';
export type { EnvelopePage, HalPage } from './pagination';
export { envelopeItems, envelopePages, halItems, halPages } from './pagination';
export { DEFAULT_JITTER, DEFAULT_RETRY_DELAYS, retryAfterSeconds, retryDelay } from './retry';
export type * from './types';
