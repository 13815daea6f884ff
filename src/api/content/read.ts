import {
  type PreparedResponse,
  readEveryList,
  readEveryPage,
  readList,
  readPage,
} from '@/content/cache';
import { notFoundDetail } from '@/content/representation';
import { isSlug, type PublishedFilter } from '@/content/schemas';
import type { ContentStore } from '@/content/store';
import type { DepsPart } from '@/deps';
import { fail } from '@/kernel/errors';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { ifNoneMatchHolds } from '@/kernel/preconditions';
import { type Answer, answerHeaders } from '../answer';

type Deps = DepsPart<'staticPages', 'content'>;

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
function answerOf(prepared: PreparedResponse, ifNoneMatch: string | null): Answer {
  const { ok, notModified } = templatesOf(prepared);
  return ifNoneMatchHolds(ifNoneMatch, prepared.etag)
    ? { status: 304, body: null, headers: notModified }
    : { status: 200, body: prepared.body, headers: ok };
}

const notFound = (slug: string) => fail('page.not_found', { detail: notFoundDetail(slug) });

/** A page read's answer: 200 or 304, or the 404 naming `slug` when nothing was chosen. */
function pageAnswerOf(
  slug: string,
  prepared: PreparedResponse | undefined,
  ifNoneMatch: string | null,
): Answer {
  if (!prepared) throw notFound(slug);
  return answerOf(prepared, ifNoneMatch);
}

/** GET /content/static-pages: the published pages, or 304. Both lanes answer with this. */
export const staticPageListAnswer = (
  { stores: { content }, staticPages }: Deps,
  ifNoneMatch: string | null,
): MaybePromise<Answer> =>
  whenReady(readList(content, staticPages), (list) => answerOf(list, ifNoneMatch));

/**
 * GET /content/static-pages/{slug}: the page in the language asked for
 * (`?language=`, then Accept-Language), or 304; 404 when no version is
 * published. Both lanes answer with this.
 */
export function staticPageAnswer(
  { stores: { content }, staticPages }: Deps,
  slug: string,
  language: string | undefined,
  acceptLanguage: string | null,
  ifNoneMatch: string | null,
): MaybePromise<Answer> {
  if (!isSlug(slug)) throw notFound(slug);
  return whenReady(readPage(content, staticPages, slug, language, acceptLanguage), (prepared) =>
    pageAnswerOf(slug, prepared, ifNoneMatch),
  );
}

/** GET /content/static-pages/?published=false|all (an employee's): the pages with their state, or 304. */
export const everyPageListAnswer = (
  content: ContentStore,
  filter: PublishedFilter,
  ifNoneMatch: string | null,
): MaybePromise<Answer> =>
  whenReady(readEveryList(content, filter), (list) => answerOf(list, ifNoneMatch));

/**
 * GET /content/static-pages/{slug}?published=false|all (an employee's): the
 * version chosen as the public read chooses, among those `filter` admits,
 * or 304; 404 when there is none.
 */
export function everyPageAnswer(
  content: ContentStore,
  slug: string,
  filter: PublishedFilter,
  language: string | undefined,
  acceptLanguage: string | null,
  ifNoneMatch: string | null,
): MaybePromise<Answer> {
  if (!isSlug(slug)) throw notFound(slug);
  return whenReady(readEveryPage(content, slug, filter, language, acceptLanguage), (prepared) =>
    pageAnswerOf(slug, prepared, ifNoneMatch),
  );
}
