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

/** The header templates of a read answered more than once (`answerOf`). */
interface ReadTemplates {
  ok?: Headers;
  notModified?: Headers;
}

/**
 * The transport's field on a cached read, set at its first answer and
 * dropped with the read (a property read is cheaper than a WeakMap lookup
 * on this path).
 */
const TEMPLATES = Symbol('header templates');
type AnsweredRead = PropertyRead & { [TEMPLATES]?: ReadTemplates };

/** A cached read's templates: undefined before its first answer, then filled as it is repeated. */
export const readTemplatesOf = (read: PropertyRead): Readonly<ReadTemplates> | undefined =>
  (read as AnsweredRead)[TEMPLATES];

function answerOf(
  read: PropertyRead | null,
  caller: Caller | null,
  ifNoneMatch: string | null | undefined,
): Answer {
  if (!read || !canSee(read, caller)) throw fail('property.not_found');
  const { etag } = read;
  // A read answered once (most of a table read at random) gets plain
  // headers; one answered again keeps a template, cheaper to copy from
  // than a record and only held by the reads that are repeated.
  const templates = (read as AnsweredRead)[TEMPLATES];
  if (!templates) (read as AnsweredRead)[TEMPLATES] = {};
  if (ifNoneMatchHolds(ifNoneMatch, etag)) {
    if (!templates) return { status: 304, body: null, headers: { etag } };
    templates.notModified ??= answerHeaders({ etag });
    return { status: 304, body: null, headers: templates.notModified };
  }
  if (!templates)
    return { status: 200, body: read.body, headers: { 'content-type': JSON_CONTENT_TYPE, etag } };
  templates.ok ??= answerHeaders({ 'content-type': JSON_CONTENT_TYPE, etag });
  return { status: 200, body: read.body, headers: templates.ok };
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
