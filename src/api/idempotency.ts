import { createHash } from 'node:crypto';
import { and, asc, count, eq, inArray, lt, sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import type { Caller } from '@/auth/tokens';
import type { Db, Tx } from '@/db/client';
import { idempotencyKeys } from '@/db/schema';
import type { Clock } from '@/kernel/clock';
import { fail, fieldError } from '@/kernel/errors';
import { docExtension } from './docs/extensions';
import { type AuthOptions, checkedCaller, identify } from './plugins/auth';
import { rawBodyOf } from './plugins/json-body';
import { pathOf, searchOf } from './request/url';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Response headers worth replaying; per-request ones (request id, rate limits) are not. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'cache-control'];
const PRUNE_EVERY = 256;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A key claimed for a request, still waiting for that request's final response. */
interface Claim {
  db: Db;
  scope: string;
  key: string;
}

/** Claims made by the `idempotent` routes, finished by `withIdempotency`. */
const claims = new WeakMap<Request, Claim>();

export interface IdempotencyOptions {
  db: Db;
  clock: Clock;
  /** How the caller is found on a route without its own `auth` check. */
  auth: AuthOptions;
  /** Live keys kept per caller (IDEMPOTENCY_KEYS_PER_CALLER); the oldest go first. */
  keysPerCaller: number;
}

/**
 * `idempotent: true` on a POST route: safe retries with `Idempotency-Key`.
 * The first response to a key is stored for 24 hours and replayed for a
 * retry with the same body; another body answers 422, a retry while the
 * first is still running 409. Keys belong to the caller (audience and
 * subject), so a token refresh keeps them and they never cross callers.
 *
 * Only an authenticated request to a declared route takes part: the key of
 * an anonymous request, a 401 or an unknown route is ignored and nothing is
 * stored, so no one without an account can fill the table. The claim is
 * made in `beforeHandle`, after authentication and validation; the answer
 * is stored by `withIdempotency`, which sees the final response.
 */
export const idempotency = ({ db, clock, auth, keysPerCaller }: IdempotencyOptions) => {
  let inserts = 0;

  /** Looks the key up and claims it, in one transaction; returns a replay if any. */
  const claim = (scope: string, key: string, request: Request, requestHash: string) =>
    db.transaction((tx) => {
      const now = clock();
      const where = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
      let row = tx.select().from(idempotencyKeys).where(where).get();
      if (row && row.createdAt < now - IDEMPOTENCY_TTL_MS) {
        tx.delete(idempotencyKeys).where(where).run();
        row = undefined;
      }
      if (row) {
        if (row.requestHash !== requestHash) {
          throw fieldError(
            ['Idempotency-Key'],
            'keyReused',
            'The Idempotency-Key was already used with a different request',
          );
        }
        if (row.status === null) {
          throw fail('idempotency.in_progress', {
            detail: 'A request with this Idempotency-Key is still being processed',
          });
        }
        return new Response(row.body, {
          status: row.status,
          headers: { ...row.headers, 'idempotent-replayed': 'true' },
        });
      }
      const path = pathOf(request.url);
      tx.insert(idempotencyKeys)
        .values({ scope, key, method: request.method, path, requestHash, createdAt: now })
        .run();
      evictBeyondBound(tx, scope, now);
      if (++inserts % PRUNE_EVERY === 0) {
        tx.delete(idempotencyKeys)
          .where(lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS))
          .run();
      }
      return null;
    });

  /**
   * Keeps at most `keysPerCaller` live keys per caller by dropping its
   * oldest: retries follow their request within minutes, so the oldest keys
   * are the ones no retry will ask for, and a busy client is never refused.
   */
  const evictBeyondBound = (tx: Tx, scope: string, now: number) => {
    const ofCaller = eq(idempotencyKeys.scope, scope);
    tx.delete(idempotencyKeys)
      .where(and(ofCaller, lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS)))
      .run();
    const live = tx.select({ n: count() }).from(idempotencyKeys).where(ofCaller).get()?.n ?? 0;
    if (live <= keysPerCaller) return;
    const oldest = tx
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(ofCaller)
      .orderBy(asc(idempotencyKeys.createdAt), asc(sql`rowid`))
      .limit(live - keysPerCaller);
    tx.delete(idempotencyKeys)
      .where(and(ofCaller, inArray(idempotencyKeys.key, oldest)))
      .run();
  };

  const callerOf = async (request: Request): Promise<Caller | null | undefined> => {
    const checked = checkedCaller(request);
    return checked !== undefined ? checked : identify(request, auth);
  };

  return new Elysia({ name: 'idempotency' }).macro({
    idempotent: (enabled: boolean) => ({
      // Read by the document (src/api/docs): the Idempotency-Key header, 409 and 422.
      detail: docExtension({ 'x-idempotent': enabled }),
      async beforeHandle({ request }) {
        const key = enabled ? request.headers.get('idempotency-key') : null;
        if (key === null) return;
        const caller = await callerOf(request);
        if (!caller) return;
        if (!KEY_PATTERN.test(key))
          throw fail('idempotency.key_invalid', {
            detail: 'Idempotency-Key must be 1 to 255 printable characters',
          });
        const scope = sha256(`${caller.aud} ${caller.sub}`);
        const { url } = request;
        const requestHash = sha256(
          `${request.method} ${pathOf(url)}${searchOf(url)}\n${rawBodyOf(request)}`,
        );
        const replay = claim(scope, key, request, requestHash);
        if (replay) return replay;
        claims.set(request, { db, scope, key });
      },
    }),
  });
};

/** Stores the final answer of a claimed key, or frees the key after a 5xx or 429. */
function finish({ db, scope, key }: Claim, response: Response, body: string): void {
  const where = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
  if (response.status >= 500 || response.status === 429) {
    db.delete(idempotencyKeys).where(where).run();
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  db.update(idempotencyKeys).set({ status: response.status, headers, body }).where(where).run();
}

type Handle = (request: Request) => Promise<Response>;

/**
 * Around the whole app, so it sees the final response (the error handler's
 * included) of a request whose key an `idempotent` route claimed.
 */
export function withIdempotency(handle: Handle): Handle {
  // Only a POST with a key takes the async path below; every other request goes
  // straight through, without an extra promise.
  const guarded = async (request: Request) => {
    let response: Response;
    try {
      response = await handle(request);
    } catch (error) {
      const claimed = claims.get(request);
      if (claimed) finish(claimed, new Response(null, { status: 500 }), '');
      throw error;
    }
    const claimed = claims.get(request);
    if (!claimed) return response;
    const body = await response.text();
    finish(claimed, response, body);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return (request) =>
    request.method === 'POST' && request.headers.has('idempotency-key')
      ? guarded(request)
      : handle(request);
}
