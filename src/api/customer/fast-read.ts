import type { ApiDeps } from '@/api/deps';
import { whenReady } from '@/kernel/maybe-promise';
import { utf8 } from '@/kernel/utf8';
import { countRequest } from '@/rate-limit/count';
import { answerHeaders, withHeaders } from '../answer';
import type { FastRoute } from '../fast-lane';
import { JSON_CONTENT_TYPE } from '../json-response';
import { knownCaller, UNSETTLED } from '../plugins/auth';
import { rateLimitHeaders } from '../rate-limit-headers';
import { tokenLimitsAnswer, tokenLimitsBody, transactionsAnswer } from './reads';

/**
 * GET /api/v1/tokens/limits and GET /api/v1/c/transactions in the fast
 * lane, for a bearer token verified before: the routes' cores, counted by
 * `countRequest` as the request pipeline counts them (the free limits read
 * looks at the windows it reports, with the same headers). A store's `hit`
 * records nothing when it refuses: the answer is made first (a 400/422
 * goes to the full route uncounted), then the request counted, and a
 * refused one goes to the full route, which answers its 429 without the
 * request being counted twice. With the in-process limiter store and the
 * SQLite customer store all of it is one synchronous step; with a shared
 * limiter store the count is awaited, and the answer is the one made when
 * the request arrived; with a customer store that answers later the page
 * is awaited first, then counted.
 */
export function fastCustomerReads(deps: ApiDeps): FastRoute {
  const { limiter, tokens } = deps;
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
        if (!limiter.enabled) return tokenLimitsAnswer(limiter, caller);
        // Reports usage without consuming quota: one look at the windows
        // serves the body and the headers, and while neither would change
        // (`memoReport`), the answer made for an earlier look is sent again.
        return whenReady(limiter.peek(limitKey), (windows) =>
          limiter.memoReport(limitKey, windows, (now) => ({
            status: 200,
            body: utf8(tokenLimitsBody(limiter, caller, windows, now)),
            headers: answerHeaders({
              'content-type': JSON_CONTENT_TYPE,
              ...rateLimitHeaders(limiter.quota(windows, now)),
            }),
          })),
        );
      }
      return whenReady(transactionsAnswer(deps, caller, search), (answer) =>
        whenReady(countRequest(limiter, limitKey, false), (counted) =>
          counted.admitted ? withHeaders(answer, rateLimitHeaders(counted.quota)) : undefined,
        ),
      );
    },
  };
}
