import type { ApiDeps } from '@/api/deps';
import { DomainError } from '@/kernel/errors';
import { ifNoneMatchHolds } from '@/kernel/preconditions';
import { canSee, scopeOf } from '@/listings/access';
import { TAG_LIST_MAX } from '@/listings/properties/etag';
import { propertyListBody } from '@/listings/properties/list';
import type { PropertyRead } from '@/listings/properties/read-cache';
import { answerHeaders, type FastAnswer, type FastRoute } from '../../fast-lane';
import { JSON_CONTENT_TYPE } from '../../json-response';
import { knownCaller, UNSETTLED } from '../../plugins/auth';

/** 200 with the representation, or 304 when `If-None-Match` names its tag. */
export function propertyReadAnswer(read: PropertyRead, ifNoneMatch?: string | null): FastAnswer {
  const { etag } = read;
  if (ifNoneMatchHolds(ifNoneMatch, etag)) {
    read.notModifiedHeaders ??= answerHeaders({ etag });
    return { status: 304, body: null, headers: read.notModifiedHeaders };
  }
  read.headers ??= answerHeaders({ 'content-type': JSON_CONTENT_TYPE, etag });
  return { status: 200, body: read.json, headers: read.headers };
}

const LIST_HEADERS = answerHeaders({ 'content-type': JSON_CONTENT_TYPE });

/**
 * GET /listings/properties/{id} in the fast lane: an existing property the
 * caller may see, anonymous or with a bearer token verified before. A 404,
 * a 401, a query string or an over-long If-None-Match goes to the full route.
 */
export const fastPropertyRead = ({ tokens, propertyReads }: ApiDeps): FastRoute => ({
  prefix: '/listings/properties/',
  answer(request, id, search) {
    if (search !== '' || id === '' || id.includes('/') || id.includes('%')) return;
    const ifNoneMatch = request.headers.get('if-none-match');
    if (ifNoneMatch !== null && ifNoneMatch.length > TAG_LIST_MAX) return;
    const viewer = knownCaller(request, tokens);
    if (viewer === UNSETTLED) return;
    const read = propertyReads.read(id);
    if (!read || !canSee(read.ownerId, viewer ?? null)) return;
    return propertyReadAnswer(read, ifNoneMatch);
  },
});

/**
 * GET /listings/properties in the fast lane, for a bearer token verified
 * before; an invalid query (400/422) and every other case go to the full route.
 */
export const fastPropertyList = ({ db, tokens, listAnswers }: ApiDeps): FastRoute => ({
  prefix: '/listings/properties',
  answer(request, rest, search) {
    if (rest !== '') return;
    const identity = knownCaller(request, tokens);
    if (identity === UNSETTLED || identity === undefined) return;
    try {
      const body = propertyListBody(db, listAnswers, search, scopeOf(identity));
      return { status: 200, body, headers: LIST_HEADERS };
    } catch (error) {
      if (error instanceof DomainError) return;
      throw error;
    }
  },
});
