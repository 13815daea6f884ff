import { createHash } from 'node:crypto';
import { Elysia } from 'elysia';
import type { Caller } from '@/auth/tokens';
import { storageFailureOf } from '@/db/storage-failure';
import type { IdempotencyStore } from '@/idempotency/store';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import { docExtension } from './docs/extensions';
import type { Handle } from './pipeline';
import { type AuthOptions, checkedCaller, identify } from './plugins/auth';
import { rawBodyOf } from './plugins/json-body';
import { pathOf, searchOf } from './request/url';

export { IDEMPOTENCY_TTL_MS } from '@/idempotency/operations';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Response headers worth replaying; per-request ones (request id, rate limits) are not. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'cache-control'];
const PRUNE_EVERY = 256;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A key claimed for a request, still waiting for that request's final response. */
interface Claim {
  store: IdempotencyStore;
  scope: string;
  key: string;
}

/** Claims made by the `idempotent` routes, finished by `withIdempotency`. */
const claims = new WeakMap<Request, Claim>();

export interface IdempotencyOptions {
  store: IdempotencyStore;
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
export const idempotency = ({ store, clock, auth, keysPerCaller }: IdempotencyOptions) => {
  let inserts = 0;
  const rules = { keysPerCaller, pruneDue: () => ++inserts % PRUNE_EVERY === 0 };

  /** Looks the key up and claims it, in one transaction; returns a replay if any. */
  const claim = async (scope: string, key: string, request: Request, requestHash: string) => {
    const { method, url } = request;
    const now = clock();
    const stored = await store.claim(
      { scope, key, method, path: pathOf(url), requestHash, now },
      rules,
    );
    return (
      stored &&
      new Response(stored.body, {
        status: stored.status,
        headers: { ...stored.headers, 'idempotent-replayed': 'true' },
      })
    );
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
        const replay = await claim(scope, key, request, requestHash);
        if (replay) return replay;
        claims.set(request, { store, scope, key });
      },
    }),
  });
};

/** Stores the final answer of a claimed key, or frees the key after a 5xx or 429. */
async function finish({ store, scope, key }: Claim, response: Response, body: string) {
  if (response.status >= 500 || response.status === 429) {
    try {
      await store.finish(scope, key, null);
    } catch (error) {
      // A full disk may refuse the freeing too: the answer stays the 507, and
      // the key stays claimed (a retry with it: 409; a new key is safe, as nothing was stored).
      if (!storageFailureOf(error)) throw error;
    }
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  await store.finish(scope, key, { status: response.status, headers, body });
}

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
      if (claimed) await finish(claimed, new Response(null, { status: 500 }), '');
      throw error;
    }
    const claimed = claims.get(request);
    if (!claimed) return response;
    const body = await response.text();
    await finish(claimed, response, body);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return (request) =>
    request.method === 'POST' && request.headers.has('idempotency-key')
      ? guarded(request)
      : handle(request);
}
