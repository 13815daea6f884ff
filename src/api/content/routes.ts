import { Elysia } from 'elysia';
import { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { type PreparedResponse, readList, readPage } from '@/content/cache';
import {
  AnySlugParams,
  DeleteQuery,
  DeleteQueryDoc,
  isSlug,
  PageQuery,
  Problem,
  Slug,
  StaticPage,
  StaticPageInput,
  StaticPageList,
} from '@/content/schemas';
import {
  deleteStaticPage,
  notFoundDetail,
  toStaticPage,
  upsertStaticPage,
} from '@/content/service';
import { fail } from '@/kernel/errors';
import { ifNoneMatchHolds } from '@/kernel/preconditions';

const TAGS = ['Static pages'];

/** RFC 9110 §13.1.2: `*` or any listed tag, compared weakly (a `W/` prefix is ignored). */
type SetHeaders = Record<string, string | number | undefined>;

/** 200 or 304 (`If-None-Match`), with a Vary that CORS added (only the full pipeline sees CORS). */
function respond(prepared: PreparedResponse, request: Request, set: SetHeaders): Response {
  const notModified = ifNoneMatchHolds(request.headers.get('if-none-match'), prepared.etag);
  const headers = notModified ? prepared.notModifiedHeaders : prepared.headers;
  const earlier = set.vary;
  const vary = headers.vary ? `${headers.vary}, ${earlier}` : String(earlier);
  return new Response(notModified ? null : prepared.body, {
    status: notModified ? 304 : 200,
    headers: earlier === undefined ? headers : { ...headers, vary },
  });
}

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw fail('page.query_invalid');
  return result.data;
}

const inputSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;

/** 204 carries no body. (A 304 is left out of the docs' response maps: the
 * OpenAPI plugin renders a bodiless 304 as an invalid content object.) */
const empty = z.null();

/**
 * Static pages API, mounted at /content.
 * Reads are public and served from the in-process cache; writes need an
 * employee token and invalidate it.
 */
export const contentRoutes = ({ auth, db, clock, staticPages: cache }: ApiDeps) =>
  new Elysia({ name: 'content', prefix: '/content' })
    .use(auth)
    // `/content/static-pages` without the slash answers too (Elysia's loose paths).
    .get(
      '/static-pages/',
      ({ request, set }) => respond(readList(db, cache, clock()), request, set.headers),
      {
        response: { 200: StaticPageList, 500: Problem },
        detail: {
          summary: 'List published static pages',
          description:
            'Published pages as `{id, slug, locale, group}`, by id. Carries an ETag; a matching If-None-Match answers 304.',
          tags: TAGS,
        },
      },
    )
    .get(
      '/static-pages/:slug',
      ({ params: { slug }, query: { language }, request, set }) => {
        const prepared = isSlug(slug)
          ? readPage(db, cache, clock(), slug, language, request.headers.get('accept-language'))
          : undefined;
        if (!prepared) throw fail('page.not_found', { detail: notFoundDetail(slug) });
        return respond(prepared, request, set.headers);
      },
      {
        params: AnySlugParams,
        query: PageQuery,
        response: { 200: StaticPage, 400: Problem, 404: Problem, 500: Problem },
        detail: {
          summary: 'Read a static page',
          description:
            'Language: `?language=`, then Accept-Language, then `en`, then any published version. Carries an ETag; a matching If-None-Match answers 304.',
          tags: TAGS,
        },
      },
    )
    .put(
      '/static-pages/:slug',
      ({ params, body, set }) => {
        const slug = parsed(Slug, params.slug);
        const page = parsed(StaticPageInput, body);
        if (page.slug !== undefined && page.slug !== slug) throw fail('page.slug_mismatch');
        const { row, created } = db.transaction((tx) => upsertStaticPage(tx, slug, page, clock()), {
          behavior: 'immediate',
        });
        cache.invalidate();
        set.status = created ? 201 : 200;
        if (created)
          set.headers.location = `/content/static-pages/${slug}?language=${row.language}`;
        return toStaticPage(row);
      },
      {
        auth: 'employee',
        response: { 200: StaticPage, 201: StaticPage, 400: Problem, 401: Problem, 403: Problem },
        detail: {
          summary: 'Create or replace a static page in one language',
          description: '201 when created, 200 when replaced; omitted optional fields reset.',
          tags: TAGS,
          security: [{ bearer: [] }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: inputSchema(StaticPageInput) } },
          },
        },
      },
    )
    .delete(
      '/static-pages/:slug',
      ({ params, query }) => {
        const slug = parsed(Slug, params.slug);
        const { language } = parsed(DeleteQuery, query);
        if (!deleteStaticPage(db, slug, language)) {
          throw fail('page.not_found', { detail: notFoundDetail(slug, language) });
        }
        cache.invalidate();
        return new Response(null, { status: 204 });
      },
      {
        auth: 'employee',
        query: DeleteQueryDoc,
        response: { 204: empty, 400: Problem, 401: Problem, 403: Problem, 404: Problem },
        detail: {
          summary: 'Delete one language version of a static page',
          tags: TAGS,
          security: [{ bearer: [] }],
        },
      },
    );
