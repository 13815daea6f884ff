import { Elysia } from 'elysia';
import { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { type QueryRouteContext, routeQuery } from '@/api/request/query';
import type { Caller } from '@/auth/tokens';
import { whenReady } from '@/kernel/maybe-promise';
import { customerCalls, requestFigures } from '@/usage/figures';
import {
  CallFigures,
  CallFiguresQuery,
  RequestFigures,
  RequestFiguresQuery,
} from '@/usage/schemas';
import { TokenLimits } from '../customer/tokens/schemas';
import { problems } from '../responses';

const HOUR_MS = 3_600_000;
const requestQuery = routeQuery(RequestFiguresQuery);
const callQuery = routeQuery(CallFiguresQuery);
const SubParams = z.object({ sub: z.string().min(1).max(128) });

/** A customer's plan, windows and calls per hour: what the console and /account plot. */
export const CustomerUsage = z.object({
  sub: z.string(),
  rate_limits: TokenLimits.shape.rate_limits,
  calls: CallFigures,
});

/**
 * The usage figures (src/usage) as JSON: requests by route group for
 * employees, a customer's calls for employees and for that customer. Each
 * read first writes this instance's unsaved counts, so it sees its own
 * latest; other instances' are at most a few seconds behind.
 */
export const usageRoutes = (deps: ApiDeps) => {
  const { auth, usage, limiter, clock } = deps;
  const usageOf = (caller: Caller, hours: number) =>
    whenReady(usage.flush(), () =>
      whenReady(limiter.peek(limiter.limitKeyOf(caller, '')), (windows) =>
        whenReady(customerCalls(usage.store, caller.sub, hours, clock()), (calls) => ({
          sub: caller.sub,
          rate_limits: limiter.reportOf(caller, windows),
          calls: { bucketMs: calls.bucketMs, from: calls.from, to: calls.to, points: calls.points },
        })),
      ),
    );
  return new Elysia({ name: 'usage' })
    .use(auth)
    .get(
      '/admin/usage/requests',
      requestQuery.handle(({ resolution, hours }) =>
        whenReady(usage.flush(), () =>
          requestFigures(usage.store, resolution, hours * HOUR_MS, clock()),
        ),
      ),
      {
        auth: 'employee',
        query: requestQuery.documented,
        response: { 200: RequestFigures, ...problems(400, 401, 403) },
        detail: {
          operationId: 'getRequestFigures',
          summary: 'Requests, 5xx answers and p99 latency by route group (employees)',
          description:
            'Per minute (kept a day) or per hour (kept 30 days), every instance summed; `hours` back from now (1 by default), capped at what the resolution keeps. Buckets without requests are left out.',
          tags: ['Admin'],
        },
      },
    )
    .get(
      '/admin/usage/customers/:sub',
      callQuery.handle(({ hours }, { params }: QueryRouteContext<z.output<typeof SubParams>>) =>
        usageOf({ sub: params.sub, aud: 'customer' }, hours),
      ),
      {
        auth: 'employee',
        params: SubParams,
        query: callQuery.documented,
        response: { 200: CustomerUsage, ...problems(400, 401, 403) },
        detail: {
          operationId: 'getCustomerUsage',
          summary: "A customer's plan, window usage and calls per hour (employees)",
          description:
            'Calls to the customer API per hour over the last `hours` (168, seven days, by default), refused ones included; every instance summed.',
          tags: ['Admin'],
        },
      },
    )
    .get(
      '/auth/me/usage',
      callQuery.handle(({ hours }, { caller }) => usageOf(caller, hours)),
      {
        auth: 'any',
        query: callQuery.documented,
        response: { 200: CustomerUsage, ...problems(400, 401) },
        detail: {
          operationId: 'getMyUsage',
          summary: "The signed-in caller's plan, window usage and customer API calls per hour",
          tags: ['Accounts'],
        },
      },
    );
};
