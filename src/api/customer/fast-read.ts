import type { ApiDeps } from '@/api/deps';
import { countRequest } from '@/rate-limit/count';
import { withHeaders } from '../answer';
import type { FastRoute } from '../fast-lane';
import { knownCaller, UNSETTLED } from '../plugins/auth';
import { tokenLimitsAnswer, transactionsAnswer } from './reads';

const unreachable = () => new Error('unreachable: synchronous limiter store');

/**
 * GET /api/v1/tokens/limits and GET /api/v1/c/transactions in the fast
 * lane, for a bearer token verified before: the routes' cores, counted by
 * `countRequest` as the request pipeline counts them. Only with the
 * in-process limiter store, whose count answers in one synchronous step
 * and records nothing when it refuses: the answer is made first (a 400/422
 * goes to the full route uncounted), then the request counted, and a
 * refused one goes to the full route, which answers its 429 without the
 * request being counted twice.
 */
export function fastCustomerReads(deps: ApiDeps): FastRoute | undefined {
  const { limiter, tokens } = deps;
  if (!limiter.synchronous) return undefined;
  return {
    prefix: '/api/v1/',
    routePath: (rest) =>
      rest === 'tokens/limits' ? '/api/v1/tokens/limits' : '/api/v1/c/transactions',
    answer(request, rest, search) {
      const isLimits = rest === 'tokens/limits' && search === '';
      if (!isLimits && rest !== 'c/transactions') return;
      const caller = knownCaller(request, tokens);
      if (caller === UNSETTLED || caller === undefined) return;
      const limitKey = limiter.limitKeyOf(caller, '');
      if (isLimits) {
        // Reports usage without consuming quota: the one look at the windows
        // serves both the body and the headers.
        const counted = countRequest(limiter, limitKey, true);
        if (counted instanceof Promise) throw unreachable();
        const answer = tokenLimitsAnswer(
          limiter,
          caller,
          limiter.enabled ? counted.windows : undefined,
        );
        if (answer instanceof Promise) throw unreachable();
        return withHeaders(answer, counted.headers);
      }
      const answer = transactionsAnswer(deps, caller, search);
      const counted = countRequest(limiter, limitKey, false);
      if (counted instanceof Promise) throw unreachable();
      if (!counted.admitted) return;
      return withHeaders(answer, counted.headers);
    },
  };
}
