import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { clientAddressOf } from '@/api/request/peer';
import { pathOf } from '@/api/request/url';
import type { Identity } from '@/auth/tokens';
import { type Counted, countRequest } from '@/rate-limit/count';
import type { Caller } from '@/rate-limit/limiter';
import { identify, knownCaller, UNSETTLED } from './auth';

const PREFIX = '/api/v1';
/** Reports usage and does not consume quota — for a valid token. */
const LIMITS_PATH = `${PREFIX}/tokens/limits`;

const isCustomerApi = (path: string) =>
  path.startsWith(PREFIX) && (path.length === PREFIX.length || path[PREFIX.length] === '/');

const isFree = (method: string, path: string) =>
  (method === 'GET' || method === 'HEAD') && (path === LIMITS_PATH || path === `${LIMITS_PATH}/`);

/**
 * Counts every /api/v1 request once, before routing, so 401, 404, 413 and
 * 422 answers are counted and carry the headers too: a valid bearer token
 * by its subject, anything else (no token, a bad one) by client IP.
 *
 * The store's `hit` checks and records in one synchronous step; the only
 * wait before it is the first verification of a token, so concurrent
 * requests cannot overshoot. Headers go into `set.headers` first so the
 * error handler's responses — the 429 included — carry them.
 */
export const rateLimit = ({ limiter, tokens, config }: ApiDeps) => {
  const plugin = new Elysia();
  if (!limiter.enabled) return plugin;

  const settle = (counted: Counted, headers: Record<string, string | number>): void => {
    Object.assign(headers, counted.headers);
    if (!counted.admitted) throw limiter.rejection(counted.windows);
  };

  /** Synchronous with the in-process store; a shared store may answer with a promise. */
  const apply = (
    caller: Caller,
    free: boolean,
    headers: Record<string, string | number>,
  ): void | Promise<void> => {
    const counted = countRequest(limiter, caller, free);
    if (counted instanceof Promise) return counted.then((c) => settle(c, headers));
    return settle(counted, headers);
  };

  return plugin.onRequest(({ request, set }) => {
    const path = pathOf(request.url);
    if (!isCustomerApi(path)) return;
    const anonymous = () => limiter.callerOf(null, clientAddressOf(request, config));
    if (!request.headers.has('authorization')) return apply(anonymous(), false, set.headers);
    const counted = (identity: Identity) =>
      apply(limiter.callerOf(identity, ''), isFree(request.method, path), set.headers);
    // A token verified before costs no promise (TokenService remembers it).
    const known = knownCaller(request, tokens);
    if (known !== UNSETTLED && known !== undefined) return counted(known);
    return identify(request, { tokens }).then((identity) =>
      identity ? counted(identity) : apply(anonymous(), false, set.headers),
    );
  });
};
