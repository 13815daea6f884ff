import type { Caller } from '@/auth/tokens';
import { transactionPageBody } from '@/customer/transactions/list';
import type { DepsPart } from '@/deps';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { Utf8 } from '@/kernel/utf8';
import type { RateLimiter } from '@/rate-limit/limiter';
import type { WindowUsage } from '@/rate-limit/store';
import type { Answer } from '../answer';
import { JSON_CONTENT_TYPE } from '../json-response';
import type { TokenLimits } from './tokens/schemas';

const TOKEN_LIMITS_MESSAGE = 'Rate limits retrieved successfully.';
const JSON_HEADERS = { 'content-type': JSON_CONTENT_TYPE };

/** A customer API answer; the rate-limit headers are added where the request is counted. */
type CustomerAnswer = Answer & { headers: Readonly<Record<string, string>> };

const ok = (body: string | Utf8): CustomerAnswer => ({ status: 200, body, headers: JSON_HEADERS });

/** The body of GET /api/v1/tokens/limits from the caller's windows as the limiter gave them. */
export function tokenLimitsBody(
  limiter: RateLimiter,
  caller: Caller,
  windows: readonly WindowUsage[],
  now?: number,
): string {
  const report: TokenLimits = {
    message: TOKEN_LIMITS_MESSAGE,
    rate_limits: limiter.reportOf(caller, windows, now),
  };
  return JSON.stringify(report);
}

/**
 * GET /api/v1/tokens/limits: the caller's plan and current usage, without
 * counting (a promise only with a shared limiter store). The route answers
 * with this, and the fast lane with the limiter off; with it on, the fast
 * lane builds the same body from the windows it looked up for the headers
 * (`tokenLimitsBody`).
 */
export function tokenLimitsAnswer(
  limiter: RateLimiter,
  caller: Caller,
): MaybePromise<CustomerAnswer> {
  return whenReady(limiter.peek(limiter.limitKeyOf(caller, '')), (windows) =>
    ok(tokenLimitsBody(limiter, caller, windows)),
  );
}

/**
 * GET /api/v1/c/transactions for `caller` and the raw query string: a
 * page of transactions, or the 400/422 of a bad query (a promise only
 * with a store that answers later). Both lanes answer with this.
 */
export function transactionsAnswer(
  { stores: { customer }, readCache }: DepsPart<'readCache', 'customer'>,
  caller: Caller,
  search: string,
): MaybePromise<CustomerAnswer> {
  return whenReady(transactionPageBody(customer, readCache, caller, search), ok);
}
