import { Elysia } from 'elysia';
import { whenReady } from '@/kernel/maybe-promise';
import type { WriteCount, WriteLimiter } from '@/rate-limit/writes';
import { docExtension } from '../docs/extensions';
import { rateLimitHeaders } from '../rate-limit-headers';
import { checkedCaller } from './auth';

/**
 * What a write route declares (docs/request-pipeline.md, "Write limits"):
 * - `1`: each request is one write;
 * - `{ each: field }`: a batch, as many writes as the validated body's
 *   numeric `field` says (1 when absent);
 * - `{ exempt: reason }`: not counted, for the reason the document shows.
 */
export type WriteCost = 1 | { each: string } | { exempt: string };

/** The writes a request's validated body makes. */
function costOf(cost: Exclude<WriteCost, { exempt: string }>, body: unknown): number {
  if (cost === 1) return 1;
  const value =
    body !== null && typeof body === 'object'
      ? (body as Record<string, unknown>)[cost.each]
      : undefined;
  return typeof value === 'number' ? value : 1;
}

/**
 * `writes: WriteCost` on a route outside the customer API. The count runs
 * in `beforeHandle`: after authentication (it counts the caller the route
 * serves) and validation (a batch's size is known), before anything is
 * written — an `Idempotency-Key` claim included, so a refused write stores
 * nothing and a replay past the budget waits like any write. The route's
 * own `auth` check has settled the caller. The headers go into
 * `set.headers`, so every later answer of the request carries them, the
 * 429 and the error handler's included.
 */
export const writeLimit = (limiter: WriteLimiter) =>
  new Elysia({ name: 'write-limit' }).macro({
    writes: (cost: WriteCost) => {
      // Read by the document (src/api/docs): the 429 and the headers, or the reason for none.
      if (typeof cost === 'object' && 'exempt' in cost) {
        return { detail: docExtension({ 'x-write-limit-exempt': cost.exempt }) };
      }
      return {
        detail: docExtension({ 'x-write-limit': limiter.enabled }),
        beforeHandle({ request, body, set }) {
          const caller = checkedCaller(request);
          if (!caller) throw new Error(`writes on ${request.method} without an auth check`);
          return whenReady(limiter.charge(caller, costOf(cost, body)), (count: WriteCount) => {
            Object.assign(set.headers, rateLimitHeaders(count.quota));
            if (!count.admitted) throw limiter.rejection(count);
          });
        },
      };
    },
  });
