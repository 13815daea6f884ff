import type { ApiDeps } from '@/api/deps';
import { type PreparedResponse, readList, readPage } from '@/content/cache';
import { isSlug } from '@/content/schemas';
import { ifNoneMatchHolds } from '@/kernel/preconditions';
import { answerHeaders, type FastAnswer, type FastRoute } from '../fast-lane';

const templates = new WeakMap<PreparedResponse, { ok: Headers; notModified: Headers }>();

/** The headers templates of a prepared response, made once per response. */
function templatesOf(prepared: PreparedResponse) {
  let made = templates.get(prepared);
  if (!made) {
    made = {
      ok: answerHeaders(prepared.headers),
      notModified: answerHeaders(prepared.notModifiedHeaders),
    };
    templates.set(prepared, made);
  }
  return made;
}

/** 200 with the prepared body, or 304 when `If-None-Match` names its tag. */
function fastAnswer(prepared: PreparedResponse, ifNoneMatch: string | null): FastAnswer {
  const { ok, notModified } = templatesOf(prepared);
  return ifNoneMatchHolds(ifNoneMatch, prepared.etag)
    ? { status: 304, body: null, headers: notModified }
    : { status: 200, body: prepared.body, headers: ok };
}

/**
 * The public static-page reads in the fast lane (they need no credential):
 * a published page without `?language=`, and the list. A 404, a query
 * string or an odd slug goes to the full route.
 */
export const fastStaticPageRead = ({ db, clock, staticPages: cache }: ApiDeps): FastRoute => ({
  prefix: '/content/static-pages',
  answer(request, rest, search) {
    if (search !== '') return;
    const ifNoneMatch = request.headers.get('if-none-match');
    if (rest === '' || rest === '/') return fastAnswer(readList(db, cache, clock()), ifNoneMatch);
    const slug = rest.slice(1);
    if (rest[0] !== '/' || !isSlug(slug)) return;
    const acceptLanguage = request.headers.get('accept-language');
    const prepared = readPage(db, cache, clock(), slug, undefined, acceptLanguage);
    return prepared && fastAnswer(prepared, ifNoneMatch);
  },
});
