import { Elysia } from 'elysia';
import type { Config } from '@/config';
import type { Logger } from '@/logger';
import { clientAddress } from '../client-address';
import { AppError } from '../errors';
import { render } from './error-handler';

interface RequestMeta {
  id: string;
  startedAt: number;
}

const metas = new WeakMap<Request, RequestMeta>();
/** Longer URLs (mostly query strings) are refused with 414 before any parsing. */
export const MAX_URL_LENGTH = 8192;
/** A client's X-Request-Id is echoed only when it is short and printable. */
const acceptableId = /^[\w.:-]{1,128}$/;

export const requestIdOf = (request: Request) => metas.get(request)?.id;

/** Socket peer addresses, recorded by the server's fetch handler before routing. */
const peers = new WeakMap<Request, string>();
export const recordPeerAddress = (request: Request, address: string | undefined) => {
  if (address) peers.set(request, address);
};

/**
 * The server whose sockets the requests come from: their peer address is
 * looked up only when asked for (rate limits, guessing protection), not on
 * every request (issue #10: a sixteenth of a cached read's CPU time).
 */
let peerServer: { requestIP(request: Request): { address: string } | null } | undefined;
export const lookUpPeersOn = (server: typeof peerServer) => {
  peerServer = server;
};

/**
 * The client's IP: the socket peer, or with TRUST_PROXY the right-most
 * X-Forwarded-For address that is not a trusted proxy (`clientAddress`).
 * In-process requests (tests) without a peer are attributed to loopback.
 */
export function clientAddressOf(
  request: Request,
  { trustProxy, trustedProxies }: Pick<Config, 'trustProxy' | 'trustedProxies'>,
): string {
  const peer = peers.get(request) ?? peerServer?.requestIP(request)?.address ?? '127.0.0.1';
  if (!trustProxy) return peer;
  return clientAddress(request.headers.get('x-forwarded-for'), peer, trustedProxies);
}

export const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export interface RequestContextOptions {
  corsOrigins: readonly string[];
}

/**
 * A listed origin may send credentials (cookie, Authorization); with `*` any
 * other origin is answered `*` without credentials, so a page elsewhere
 * cannot act with the visitor's session.
 */
function corsHeaders(origin: string | null, allowed: readonly string[]) {
  if (!origin) return undefined;
  const listed = allowed.includes(origin);
  if (!listed && !allowed.includes('*')) return undefined;
  return {
    'access-control-allow-origin': listed ? origin : '*',
    ...(listed ? { 'access-control-allow-credentials': 'true' } : {}),
    'access-control-expose-headers':
      'Location, ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id',
    vary: 'Origin',
  };
}

/**
 * Request id (X-Request-Id echoed or created), security headers, optional
 * CORS (off unless CORS_ORIGINS is set); the log line is `withRequestContext`.
 */
export const requestContext = ({ corsOrigins }: RequestContextOptions) =>
  new Elysia({ name: 'request-context' }).onRequest(({ request, set }) => {
    const { id } = startRequest(request);
    // The security headers and the request id are put on the final response
    // by `withRequestContext`: in `set.headers` they made Elysia copy every
    // Response a handler returns into a new one (issue #10).
    if (request.url.length > MAX_URL_LENGTH) {
      return render(new AppError(414), new URL(request.url).pathname);
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

/** The request's id: a short printable X-Request-Id is echoed, otherwise a new UUID. */
export function requestIdFor(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && acceptableId.test(given) ? given : crypto.randomUUID();
}

/** The request's id and start time, recorded once whichever lane answers it. */
export function startRequest(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (meta) return meta;
  meta = { id: requestIdFor(request), startedAt: performance.now() };
  metas.set(request, meta);
  return meta;
}

/** The one log line per request, once its response is ready. */
export function logRequest(logger: Logger, request: Request, path: string, status: number): void {
  const meta = metas.get(request);
  writeRequestLine(logger, meta?.id, request.method, path, status, meta?.startedAt);
}

/** That line from its parts (the fast lane keeps them in locals). */
export function writeRequestLine(
  logger: Logger,
  requestId: string | undefined,
  method: string,
  path: string,
  status: number,
  startedAt: number | undefined,
): void {
  const durationMs =
    startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 100) / 100;
  logger.info('request', { requestId, method, path, status, durationMs });
}

/** The query string of a request URL, with its `?`; '' when there is none. */
export function searchOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}

/** The path of an absolute request URL, without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return url.slice(start, query < 0 ? undefined : query);
}

/**
 * The security headers and the request id on every response, and one JSON
 * log line per request, once its response is ready. Written around
 * the app rather than in an after-response hook: Elysia runs such a hook in a
 * callback of its own for every request, which cost about 7 µs of a 25 µs
 * cached read (issue #10).
 */
export function withRequestContext(
  handle: (request: Request) => Promise<Response>,
  logger: Logger,
): (request: Request) => Promise<Response> {
  return (request) => {
    startRequest(request);
    return handle(request).then((response) => {
      const { headers } = response;
      for (const name in securityHeaders) {
        headers.set(name, securityHeaders[name as keyof typeof securityHeaders]);
      }
      headers.set('x-request-id', startRequest(request).id);
      logRequest(logger, request, pathOf(request.url), response.status);
      return response;
    });
  };
}
