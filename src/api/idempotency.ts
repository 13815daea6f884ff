import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import { securityHeaders } from '@/api/request/headers';
import type { Db } from '@/db/client';
import { idempotencyKeys } from '@/db/schema';
import type { Clock } from '@/kernel/clock';
import { DomainError, fail, fieldError } from '@/kernel/errors';
import { MAX_BODY_BYTES } from '@/kernel/limits';
import { renderError } from './errors';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Response headers worth replaying; per-request ones (request id, rate limits) are not. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'cache-control'];
const PRUNE_EVERY = 256;

const coveredPath = (path: string) =>
  path.startsWith('/listings/') || path.startsWith('/api/v1/admin/');

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

type Handle = (request: Request) => Promise<Response>;

/**
 * Safe retries (Idempotency-Key) for every POST under /listings and
 * /api/v1/admin: the first response to a key is stored for 24 hours and
 * replayed for a retry with the same body; another body answers 422 and a
 * retry while the first is still running answers 409. Keys are scoped to the
 * caller's credential. Wraps the whole app so it sees the final response.
 */
export function withIdempotency(handle: Handle, db: Db, clock: Clock): Handle {
  let inserts = 0;

  const finish = (scope: string, key: string, response: Response, body: string) => {
    if (response.status >= 500 || response.status === 429) {
      db.delete(idempotencyKeys)
        .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
        .run();
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    db.update(idempotencyKeys)
      .set({ status: response.status, headers, body })
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
      .run();
  };

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
      const { pathname } = new URL(request.url);
      tx.insert(idempotencyKeys)
        .values({ scope, key, method: request.method, path: pathname, requestHash, createdAt: now })
        .run();
      if (++inserts % PRUNE_EVERY === 0) {
        tx.delete(idempotencyKeys)
          .where(lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS))
          .run();
      }
      return null;
    });

  // Only a POST with a key takes the async path below; every other request goes
  // straight through, without an extra promise.
  const guarded = async (request: Request, key: string) => {
    const url = new URL(request.url);
    if (!coveredPath(url.pathname)) return handle(request);
    if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return handle(request);
    try {
      if (!KEY_PATTERN.test(key))
        throw fail('idempotency.key_invalid', {
          detail: 'Idempotency-Key must be 1 to 255 printable characters',
        });
      const credential =
        request.headers.get('authorization') ?? request.headers.get('cookie') ?? 'anonymous';
      const scope = sha256(credential);
      const text = await request.clone().text();
      const requestHash = sha256(`${request.method} ${url.pathname}${url.search}\n${text}`);
      const replay = claim(scope, key, request, requestHash);
      if (replay) return replay;
      let response: Response;
      try {
        response = await handle(request);
      } catch (error) {
        finish(scope, key, new Response(null, { status: 500 }), '');
        throw error;
      }
      const body = await response.text();
      finish(scope, key, response, body);
      return new Response(body, { status: response.status, headers: response.headers });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const response = renderError(error, url.pathname);
      for (const [name, value] of Object.entries(securityHeaders))
        response.headers.set(name, value);
      return response;
    }
  };
  return (request) => {
    const key = request.method === 'POST' ? request.headers.get('idempotency-key') : null;
    return key === null ? handle(request) : guarded(request, key);
  };
}
