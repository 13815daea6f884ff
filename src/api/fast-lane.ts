import type { Handle } from '@/api/pipeline';
import { logFastRequest, logRequest } from '@/api/request/log';
import { requestIdFor, startRequest } from '@/api/request/meta';
import type { RequestMetrics } from '@/api/request/metrics';
import { MAX_URL_LENGTH, pathOf, searchOf } from '@/api/request/url';
import { isPostgresUnavailable } from '@/db/pg/connection';
import { DomainError } from '@/kernel/errors';
import type { Logger } from '@/logger';
import { type Answer, deferredResponseOf, responseOf } from './answer';
import type { ErrorFamilyOf } from './error-family';
import { unhandled } from './plugins/error-handler';

export { answerHeaders } from './answer';

/** What a fast route answers: the answer of the route's own core (`src/api/answer.ts`). */
export type FastAnswer = Answer;

/**
 * One hot read answered outside Elysia's lifecycle, by the same core the
 * route calls. `answer` gets the path after `prefix` and the query string
 * (with its `?`, or '') and answers only the common case: anything else — a
 * credential it cannot check synchronously, an unusual header — is
 * `undefined`, and so is a `DomainError` it throws (before changing
 * anything): the full pipeline then answers the request as if the fast lane
 * did not exist, with the error body rendered in one place.
 */
export interface FastRoute {
  prefix: string;
  /**
   * A promise only where the answer must wait for something outside the
   * process (the customer reads' count in a shared limiter store); it
   * resolves to undefined, or rejects with a `DomainError`, to hand the
   * request to the full pipeline like a synchronous decline.
   */
  answer(
    request: Request,
    rest: string,
    search: string,
  ): FastAnswer | undefined | Promise<FastAnswer | undefined>;
  /**
   * A fixed path of the route template the answered request belongs to
   * (e.g. `/listings/properties/:id`), for the metrics; `rest` is the path
   * after `prefix`. Absent: the request's own path is resolved.
   */
  routePath?(rest: string): string;
}

export interface FastLaneOptions {
  logger: Logger;
  /** With CORS on, a request naming an Origin takes the full pipeline (CORS headers, preflight). */
  corsOrigins: readonly string[];
  /** Called for each request the fast lane answered (tests tell the lanes apart with it). */
  onFastAnswer?: (request: Request) => void;
  /** Fed with every request's route, status and duration, beside its log line. */
  metrics?: RequestMetrics;
  /** The error family of a path, for the 500 of a failure (`errorFamiliesOf`). */
  errorFamilyOf: ErrorFamilyOf;
}

/**
 * The server's request handler: GETs of the hot reads (a property, a static
 * page, the customer API reads) go to their fast route; everything else, and
 * whatever a fast route declines, goes to `fallback` (Elysia with the request
 * context, backstop and idempotency wrappers).
 *
 * Why: Elysia's lifecycle (hooks, macros, schema checks, a promise per
 * stage) is most of the CPU time of a cached read; without it those reads
 * reach at least half the rate of a bare Bun.serve (docs/performance.md).
 * A fast answer carries the same headers, request id and log line as the
 * full pipeline's.
 */
export function withFastLane(
  routes: readonly FastRoute[],
  fallback: Handle,
  { logger, corsOrigins, onFastAnswer, metrics, errorFamilyOf }: FastLaneOptions,
): Handle {
  const corsOn = corsOrigins.length > 0;

  const respond = (
    request: Request,
    route: FastRoute,
    path: string,
    rest: string,
    found: FastAnswer,
    startedAt: number,
    deferred: boolean,
  ): Response => {
    const id = requestIdFor(request);
    const response = deferred ? deferredResponseOf(found) : responseOf(found);
    response.headers.set('x-request-id', id);
    // GETs only: no request body for the debug line of a failed request.
    const routePath = route.routePath?.(rest);
    logFastRequest(logger, id, path, routePath, found.status, startedAt, metrics);
    onFastAnswer?.(request);
    return response;
  };

  const answer = (
    request: Request,
    startedAt: number,
  ): Response | undefined | Promise<Response | undefined> => {
    const { url } = request;
    if (url.length > MAX_URL_LENGTH || (corsOn && request.headers.has('origin'))) return;
    const path = pathOf(url);
    const search = searchOf(url);
    for (const route of routes) {
      if (!path.startsWith(route.prefix)) continue;
      const rest = path.slice(route.prefix.length);
      const found = route.answer(request, rest, search);
      if (found instanceof Promise) {
        return found.then((f) => f && respond(request, route, path, rest, f, startedAt, true));
      }
      return found && respond(request, route, path, rest, found, startedAt, false);
    }
  };

  /**
   * A DomainError declines (the full pipeline renders it), and so does an
   * unreachable PostgreSQL (the full pipeline answers its 503); anything
   * else is a 500.
   */
  const failed = (error: unknown, request: Request): Response | Promise<Response> => {
    if (error instanceof DomainError || isPostgresUnavailable(error)) return fallback(request);
    const { id } = startRequest(request);
    const response = unhandled(error, request, logger, errorFamilyOf);
    response.headers.set('x-request-id', id);
    logRequest(logger, request, pathOf(request.url), response.status, metrics);
    return response;
  };

  return (request) => {
    if (request.method !== 'GET') return fallback(request);
    try {
      const answered = answer(request, performance.now());
      if (answered instanceof Promise) {
        return answered.then(
          (response) => response ?? fallback(request),
          (error) => failed(error, request),
        );
      }
      return answered ?? fallback(request);
    } catch (error) {
      return failed(error, request);
    }
  };
}
