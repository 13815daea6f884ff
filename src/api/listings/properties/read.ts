import { derivedKey } from '@/auth/keys';
import type { Caller } from '@/auth/tokens';
import type { DepsPart } from '@/deps';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { ifNoneMatchHolds } from '@/kernel/preconditions';
import { canSee, scopeOf } from '@/listings/access';
import { propertyListBody } from '@/listings/properties/list';
import { type PropertyRead, readProperty } from '@/listings/properties/read-cache';
import { type Answer, answerHeaders } from '../../answer';
import { JSON_CONTENT_TYPE } from '../../json-response';

/**
 * GET /listings/properties/{id} for `caller` (null: anonymous): 200 with the
 * representation, or 304 when `If-None-Match` names its tag; 404 when there
 * is no such property or the caller may not see it (another owner's for a
 * customer, an archived one for an anonymous reader). The route and the fast
 * lane both answer with this.
 */
export function propertyReadAnswer(
  { stores: { listings }, readCache }: DepsPart<'readCache', 'listings'>,
  caller: Caller | null,
  id: string,
  ifNoneMatch: string | null | undefined,
): MaybePromise<Answer> {
  return whenReady(readProperty(listings, readCache, id), (read) =>
    answerOf(read, caller, ifNoneMatch),
  );
}

/**
 * The headers every property answer shares; the ETag, the one that varies,
 * is set on top (`Answer.etag`). One template for all reads rather than one
 * per cached read: a template per read held about 2 KB of native memory for
 * each of the tens of thousands of reads the cache holds, and copying the
 * shared one then setting the tag costs about 0.2 µs more a request.
 */
const OK_HEADERS = answerHeaders({ 'content-type': JSON_CONTENT_TYPE });
const NOT_MODIFIED_HEADERS = answerHeaders({});

function answerOf(
  read: PropertyRead | null,
  caller: Caller | null,
  ifNoneMatch: string | null | undefined,
): Answer {
  if (!read || !canSee(read, caller)) throw fail('property.not_found');
  const { etag } = read;
  if (ifNoneMatchHolds(ifNoneMatch, etag)) {
    return { status: 304, body: null, headers: NOT_MODIFIED_HEADERS, etag };
  }
  return { status: 200, body: read.body, headers: OK_HEADERS, etag };
}

const LIST_HEADERS = answerHeaders({ 'content-type': JSON_CONTENT_TYPE });

/**
 * GET /listings/properties for `caller` and the raw query string (with its
 * `?`, or ''): the HAL page, or the 400 of an invalid query. The route and
 * the fast lane both answer with this.
 */
export function propertyListAnswer(
  { stores: { listings }, readCache, config }: DepsPart<'readCache' | 'config', 'listings'>,
  caller: Caller | null,
  search: string,
): MaybePromise<Answer> {
  const key = cursorKeyOf(config.jwtSecret);
  return whenReady(propertyListBody(listings, readCache, search, scopeOf(caller), key), (body) => ({
    status: 200,
    body,
    headers: LIST_HEADERS,
  }));
}

const cursorKeys = new Map<string, Buffer>();

/** The key sealing keyset cursors: derived from JWT_SECRET, so every instance opens every other's. */
function cursorKeyOf(secret: string): Buffer {
  let key = cursorKeys.get(secret);
  if (!key) {
    key = Buffer.from(derivedKey(secret, 'list-cursor'), 'base64url');
    cursorKeys.set(secret, key);
  }
  return key;
}
