import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { limitAddressOf } from '@/api/request/peer';
import { pathOf } from '@/api/request/url';
import type { Caller } from '@/auth/tokens';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { type Counted, countRequest } from '@/rate-limit/count';
import type { LimitKey } from '@/rate-limit/limiter';
import { docExtension } from '../docs/extensions';
import { isUnder } from '../error-family';
import { rateLimitHeaders } from '../rate-limit-headers';
import { identify, isSameOrigin, knownCaller, sessionCookieOf, UNSETTLED } from './auth';

/** Reports usage and does not consume quota — for a signed-in caller. */
const LIMITS_PATH = '/tokens/limits';

/**
 * `limited: true` on the group's guard: the document lists the limiter's 429
 * on its operations, whether the limits are on or off.
 */
const limitedRoutes = new Elysia({ name: 'customer-limit-doc' }).macro({
  limited: (on: boolean) => ({ detail: docExtension({ 'x-customer-limit': on }) }),
});

/**
 * Mounted by the customer API group at its prefix, `mount`; counts every
 * request under it once, before routing, so 401, 404, 413 and 422 answers
 * are counted and carry the headers too. It has to run before routing: Elysia parses the body (413,
 * 415, malformed JSON) before any hook of the matched route, and an unknown
 * path under the mount has no route at all. The path is `pathOf`, the one
 * the router matches, and the front door has refused any URL where that
 * could differ from the URL's own path (docs/request-pipeline.md).
 *
 * The caller counted is the one the routes serve: a valid bearer token by
 * its subject; else a valid session cookie by its account (a state-changing
 * request from a foreign Origin excepted: the route refuses it, and another
 * site must not spend a signed-in user's quota); anything else (nothing, a
 * bad token, an unknown session) by client IP.
 *
 * The store's `hit` checks and records in one atomic step (synchronous in
 * process, one script in Redis); the only wait before it is the first
 * verification of a token, so concurrent requests cannot overshoot. Headers go into `set.headers` first so the
 * error handler's responses — the 429 included — carry them.
 */
export const rateLimit = ({ limiter, tokens, sessions, config }: ApiDeps, mount: string) => {
  const plugin = new Elysia().use(limitedRoutes);
  if (!limiter.enabled) return plugin;
  const limitsPath = `${mount}${LIMITS_PATH}`;
  const isFree = (method: string, path: string) =>
    (method === 'GET' || method === 'HEAD') && (path === limitsPath || path === `${limitsPath}/`);

  const settle = (counted: Counted, headers: Record<string, string | number>): void => {
    Object.assign(headers, rateLimitHeaders(counted.quota));
    if (!counted.admitted) throw limiter.rejection(counted.windows);
  };

  /** Synchronous with the in-process store; a shared store may answer with a promise. */
  const apply = (
    limitKey: LimitKey,
    free: boolean,
    headers: Record<string, string | number>,
  ): void | Promise<void> => {
    return whenReady(countRequest(limiter, limitKey, free), (counted) => settle(counted, headers));
  };

  /** The signed-in account of a request without an Authorization header, if any. */
  const sessionCaller = (request: Request): MaybePromise<Caller | null> => {
    const value = sessionCookieOf(request, config);
    if (value === undefined) return null;
    return whenReady(sessions(value), (caller) =>
      caller && isSameOrigin(request, config.publicOrigins) ? caller : null,
    );
  };

  return plugin.onRequest(({ request, set }) => {
    const path = pathOf(request.url);
    if (!isUnder(path, mount)) return;
    const anonymous = () =>
      apply(limiter.limitKeyOf(null, limitAddressOf(request, config)), false, set.headers);
    const counted = (caller: Caller) =>
      apply(limiter.limitKeyOf(caller, ''), isFree(request.method, path), set.headers);
    if (!request.headers.has('authorization')) {
      const viaSession = request.headers.has('cookie') ? sessionCaller(request) : null;
      return whenReady(viaSession, (caller) => (caller ? counted(caller) : anonymous()));
    }
    // A token verified before costs no promise (TokenService remembers it).
    const known = knownCaller(request, tokens);
    if (known !== UNSETTLED && known !== undefined) return counted(known);
    return identify(request, { tokens }).then((caller) => (caller ? counted(caller) : anonymous()));
  });
};
