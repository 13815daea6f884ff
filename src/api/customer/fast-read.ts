import type { ApiDeps } from '@/api/deps';
import type { Identity } from '@/auth/tokens';
import { parseListQuery, TransactionQuery } from '@/customer/transactions/schemas';
import { transactionPageBody } from '@/customer/transactions/service';
import type { FastAnswer, FastRoute } from '../fast-lane';
import { JSON_CONTENT_TYPE } from '../json-response';
import { knownCaller, UNSETTLED } from '../plugins/auth';
import { TOKEN_LIMITS_MESSAGE } from './tokens/routes';

const QUERY_KEYS = new Set(Object.keys(TransactionQuery.shape));

/**
 * The query of a transactions request in its plain form — each known key at
 * most once, nothing percent-encoded — as Elysia would hand it over; null
 * for anything else, which the full route parses.
 */
function plainQuery(search: string): TransactionQuery | null {
  if (search.includes('%') || search.includes('+')) return null;
  const query: Record<string, string> = {};
  for (const pair of search.slice(1).split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = at < 0 ? pair : pair.slice(0, at);
    if (!QUERY_KEYS.has(key) || key in query) return null;
    query[key] = at < 0 ? '' : pair.slice(at + 1);
  }
  return query;
}

const text = (body: string, headers: Record<string, string>): FastAnswer => ({
  status: 200,
  body,
  headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
});

/**
 * GET /api/v1/tokens/limits and GET /api/v1/c/transactions in the fast
 * lane, for a bearer token verified before, with the rate-limit headers of
 * the full pipeline. Only with the in-process limiter store: its `hit`
 * counts and answers in one synchronous step, and records nothing when it
 * refuses, so the full route can take over a refused request (and answer
 * its 429) without the request being counted twice. The transactions query
 * is checked before counting; a 422 is left to the full route.
 */
export function fastCustomerReads({
  db,
  limiter,
  tokens,
  listAnswers,
}: ApiDeps): FastRoute | undefined {
  if (!limiter.synchronous) return undefined;

  const limits = (identity: Identity): FastAnswer => {
    const windows = limiter.peek(limiter.callerOf(identity, ''));
    if (windows instanceof Promise) throw new Error('unreachable: synchronous limiter store');
    const report = {
      message: TOKEN_LIMITS_MESSAGE,
      rate_limits: limiter.reportOf(identity, windows),
    };
    return text(JSON.stringify(report), limiter.enabled ? limiter.headerValues(windows) : {});
  };

  const transactions = (identity: Identity, search: string): FastAnswer | undefined => {
    const query = plainQuery(search);
    if (!query) return;
    let request: ReturnType<typeof parseListQuery>;
    try {
      request = parseListQuery(query, identity);
    } catch {
      return;
    }
    let headers = {};
    if (limiter.enabled) {
      const result = limiter.hit(limiter.callerOf(identity, ''));
      if (result instanceof Promise) throw new Error('unreachable: synchronous limiter store');
      if (!result.admitted) return;
      headers = limiter.headerValues(result.windows);
    }
    return text(transactionPageBody(db, listAnswers, request), headers);
  };

  return {
    prefix: '/api/v1/',
    answer(request, rest, search) {
      const isLimits = rest === 'tokens/limits' && search === '';
      if (!isLimits && rest !== 'c/transactions') return;
      const identity = knownCaller(request, tokens);
      if (identity === UNSETTLED || identity === undefined) return;
      return isLimits ? limits(identity) : transactions(identity, search);
    },
  };
}
