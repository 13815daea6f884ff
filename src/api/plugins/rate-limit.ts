import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';
import { identify } from './auth';
import { clientAddressOf } from './request-context';

const PREFIX = '/api/v1';
/** Reports usage and does not consume quota (CONTRACT §8) — for a valid token. */
const LIMITS_PATH = `${PREFIX}/tokens/limits`;

/** The path of an absolute request URL, without parsing the whole URL on every request. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return url.slice(start, query < 0 ? undefined : query);
}

const isCustomerApi = (path: string) =>
  path.startsWith(PREFIX) && (path.length === PREFIX.length || path[PREFIX.length] === '/');

const isFree = (method: string, path: string) =>
  (method === 'GET' || method === 'HEAD') && (path === LIMITS_PATH || path === `${LIMITS_PATH}/`);

/**
 * Counts every /api/v1 request once, before routing, so 401, 404, 413 and
 * 422 answers are counted and carry the headers too: a valid bearer token
 * by its subject, anything else (no token, a bad one) by client IP. The
 * store's `hit` checks and records in one synchronous step after the only
 * `await` (token verification), so concurrent requests cannot overshoot.
 * Headers go into `set.headers` first so the error handler's responses —
 * the 429 included — carry them.
 */
export const rateLimit = ({ limiter, tokens, config }: AppDeps) => {
  const plugin = new Elysia();
  if (!limiter.enabled) return plugin;
  return plugin.onRequest(async ({ request, set }) => {
    const path = pathOf(request.url);
    if (!isCustomerApi(path)) return;
    const identity = await identify(request, { tokens });
    const caller = limiter.callerOf(
      identity,
      identity ? '' : clientAddressOf(request, config.trustProxy),
    );
    if (identity && isFree(request.method, path)) {
      Object.assign(set.headers, limiter.headers(await limiter.peek(caller)));
      return;
    }
    const { admitted, windows } = await limiter.hit(caller);
    Object.assign(set.headers, limiter.headers(windows));
    if (!admitted) throw limiter.rejection(windows);
  });
};
