import type { Handle } from '@/api/pipeline';
import { fail } from '@/kernel/errors';
import type { Logger } from '@/logger';
import { renderError } from '../errors';
import { securityHeaders } from './headers';
import { logRequest } from './log';
import { startRequest } from './meta';
import { routesAsWritten } from './url';

/**
 * The front door: a request whose URL the router would read differently from
 * a URL parser (see `routesAsWritten`) is answered 400 before the fast lane,
 * the limiter, idempotency or the error format look at its path. Refusing
 * rather than repairing the URL: a client sending `Host: a`, no Host or an
 * absolute-form target that Bun rewrote is not one the service must serve,
 * and no later code, present or future, can then meet a path that means two
 * things.
 */
export function withRoutableTarget(handle: Handle, logger: Logger): Handle {
  return (request) => (routesAsWritten(request.url) ? handle(request) : refuse(request, logger));
}

function refuse(request: Request, logger: Logger): Response {
  const { id } = startRequest(request);
  const error = fail('request.malformed', {
    detail: 'The request target and the Host header do not form a URL this service can route',
  });
  // Always the problem body: which API the request meant is what is unclear.
  const response = renderError(error, 'problem');
  for (const [name, value] of Object.entries(securityHeaders)) response.headers.set(name, value);
  response.headers.set('x-request-id', id);
  logRequest(logger, request, request.url.slice(0, 256), response.status);
  return response;
}
