import type { AppDeps } from '@/deps';
import { ifNoneMatchHolds } from '../conditional';
import type { FastAnswer, FastRoute } from '../fast-lane';
import { type PreparedResponse, readList, readPage } from './cache';
import { SLUG_MAX, SLUG_PATTERN } from './schemas';

export const isSlug = (slug: string) => slug.length <= SLUG_MAX && SLUG_PATTERN.test(slug);

/** 200 with the prepared body, or 304 when `If-None-Match` names its tag. */
export const preparedAnswer = (
  prepared: PreparedResponse,
  ifNoneMatch: string | null,
): FastAnswer =>
  ifNoneMatchHolds(ifNoneMatch, prepared.etag)
    ? { status: 304, body: null, headers: prepared.notModifiedHeaders }
    : { status: 200, body: prepared.body, headers: prepared.headers };

/**
 * The public static-page reads in the fast lane (they need no credential):
 * a published page without `?language=`, and the list. A 404, a query
 * string or an odd slug goes to the full route.
 */
export const fastStaticPageRead = ({ db, clock, staticPages: cache }: AppDeps): FastRoute => ({
  prefix: '/content/static-pages',
  answer(request, rest, search) {
    if (search !== '') return;
    const ifNoneMatch = request.headers.get('if-none-match');
    if (rest === '' || rest === '/')
      return preparedAnswer(readList(db, cache, clock()), ifNoneMatch);
    const slug = rest.slice(1);
    if (rest[0] !== '/' || !isSlug(slug)) return;
    const acceptLanguage = request.headers.get('accept-language');
    const prepared = readPage(db, cache, clock(), slug, undefined, acceptLanguage);
    return prepared && preparedAnswer(prepared, ifNoneMatch);
  },
});
