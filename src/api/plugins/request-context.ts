import { Elysia } from 'elysia';
import type { Handle } from '@/api/pipeline';
import { fail } from '@/kernel/errors';
import type { Logger } from '@/logger';
import type { ErrorFamilyOf } from '../error-family';
import { renderError } from '../errors';
import { bodyCopyOf, logRequestBody } from '../request/body-log';
import { corsHeaders, securityHeaders } from '../request/headers';
import { logRequest } from '../request/log';
import { startRequest } from '../request/meta';
import type { RequestMetrics } from '../request/metrics';
import { MAX_URL_LENGTH, pathOf } from '../request/url';

export interface RequestContextOptions {
  corsOrigins: readonly string[];
  /** The error family of a path, as the route groups declared it (filled once routes exist). */
  errorFamilyOf: ErrorFamilyOf;
}

/**
 * Request id (X-Request-Id echoed or created), security headers, optional
 * CORS (off unless CORS_ORIGINS is set); the log line is `withRequestContext`.
 */
export const requestContext = ({ corsOrigins, errorFamilyOf }: RequestContextOptions) =>
  new Elysia({ name: 'request-context' }).onRequest(({ request, set }) => {
    const { id } = startRequest(request);
    // The security headers and the request id are put on the final response
    // by `withRequestContext`: in `set.headers` they made Elysia copy every
    // Response a handler returns into a new one.
    if (request.url.length > MAX_URL_LENGTH) {
      return renderError(fail('request.uri_too_long'), errorFamilyOf(pathOf(request.url)));
    }
    const cors = corsOrigins.length
      ? corsHeaders(request.headers.get('origin'), corsOrigins)
      : undefined;
    if (!cors) return;
    Object.assign(set.headers, cors);
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return new Response(null, {
        status: 204,
        headers: {
          ...securityHeaders,
          ...cors,
          'x-request-id': id,
          'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
          'access-control-allow-headers':
            'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id',
          'access-control-max-age': '600',
        },
      });
    }
  });

/**
 * The security headers and the request id on every response, and one
 * log line per request, once its response is ready (with debug logging, a
 * 4xx or 5xx is followed by a line with the request body, redacted). Written around
 * the app rather than in an after-response hook: Elysia runs such a hook in a
 * callback of its own for every request, a large share of a cached read
 * (docs/performance.md).
 */
export function withRequestContext(
  handle: Handle,
  logger: Logger,
  metrics?: RequestMetrics,
): (request: Request) => Promise<Response> {
  return (request) => {
    startRequest(request);
    const copy = bodyCopyOf(logger, request);
    return Promise.resolve(handle(request)).then((response) => {
      const { headers } = response;
      for (const name in securityHeaders) {
        headers.set(name, securityHeaders[name as keyof typeof securityHeaders]);
      }
      const { id } = startRequest(request);
      headers.set('x-request-id', id);
      logRequest(logger, request, pathOf(request.url), response.status, metrics);
      logRequestBody(logger, id, response.status, copy);
      return response;
    });
  };
}
