import { Elysia } from 'elysia';
import { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import { toStaticPage } from '@/content/representation';
import {
  AnySlugParams,
  DeleteQuery,
  DeleteQueryDoc,
  ListQuery,
  PageQuery,
  type PublishedFilter,
  Slug,
  StaticPage,
  StaticPageEntryList,
  StaticPageInput,
  StaticPageList,
} from '@/content/schemas';
import { fail } from '@/kernel/errors';
import { etagOfJson } from '@/kernel/etag';
import { invalidParamsOf, type ParamSource } from '@/kernel/invalid-params';
import { whenReady } from '@/kernel/maybe-promise';
import { type Answer, responseOf } from '../answer';
import { ifMatchHeaders, withETag, withLocation } from '../docs/headers';
import { BadRequestProblem, Problem } from '../problem';
import { NoBody } from '../responses';
import {
  everyPageAnswer,
  everyPageListAnswer,
  staticPageAnswer,
  staticPageListAnswer,
} from './read';

const TAGS = ['Static pages'];

/** Whether `?published=` asks for unpublished pages too: an employee's read. */
const drafts = (filter: PublishedFilter | undefined): filter is 'false' | 'all' =>
  filter !== undefined && filter !== 'true';

type SetHeaders = Record<string, string | number | undefined>;

/** The core's answer with a Vary that CORS added (only the full pipeline sees CORS). */
function respond(answer: Answer, set: SetHeaders): Response {
  const response = responseOf(answer);
  const earlier = set.vary;
  if (earlier === undefined) return response;
  const own = response.headers.get('vary');
  response.headers.set('vary', own ? `${own}, ${earlier}` : String(earlier));
  return response;
}

/** `value` read by `schema`; a failure is a 400 naming what was refused (`root` names a scalar). */
function parsed<T extends z.ZodType>(
  schema: T,
  value: unknown,
  source: ParamSource,
  root?: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const invalidParams = invalidParamsOf(result.error.issues, value, source, root);
    throw fail('query.invalid', { invalidParams });
  }
  return result.data;
}

const inputSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;

/** Read answers carry their ETag; a 304 (If-None-Match current) has no body. */
const tagged = <S extends z.ZodType>(schema: S) => withETag(schema);
const notModified = withETag(NoBody);

/** The writes' optional If-Match: the ETag GET served for that language. */
const IfMatch = ifMatchHeaders('GET /content/static-pages/{slug}?language= of that language');
const ifMatchOf = (request: Request) => request.headers.get('if-match') ?? undefined;

/**
 * Static pages API, mounted at /content.
 * Reads are public and served from the in-process cache; writes need an
 * employee token (the cache notices them through its change feed).
 */
export const contentRoutes = ({
  auth,
  writes,
  stores: { content },
  clock,
  config,
  staticPages,
  callerMeeting,
}: ApiDeps) =>
  new Elysia({ name: 'content', prefix: '/content' })
    .use(auth)
    .use(writes)
    // `/content/static-pages` without the slash answers too (Elysia's loose paths).
    .get(
      '/static-pages/',
      ({ request, query: { published }, set }) => {
        const ifNoneMatch = request.headers.get('if-none-match');
        const answer = drafts(published)
          ? callerMeeting(request, 'employee').then(() =>
              everyPageListAnswer(content, published, ifNoneMatch),
            )
          : staticPageListAnswer({ stores: { content }, staticPages }, ifNoneMatch);
        return whenReady(answer, (ready) => respond(ready, set.headers));
      },
      {
        query: ListQuery,
        response: {
          200: tagged(z.union([StaticPageList, StaticPageEntryList])),
          304: notModified,
          400: BadRequestProblem,
          401: Problem,
          403: Problem,
          500: Problem,
        },
        detail: {
          operationId: 'listStaticPages',
          summary: 'List static pages',
          description:
            'Published pages as `{id, slug, locale, group}`, by id. `?published=false` (unpublished) or `all` ' +
            '(both) is for employees: each entry then carries `published`, and the answer is `private, no-store`. ' +
            'Carries an ETag; a matching If-None-Match answers 304.',
          tags: TAGS,
        },
      },
    )
    .get(
      '/static-pages/:slug',
      ({ params: { slug }, query: { language, published }, request, set }) => {
        const { headers } = request;
        const acceptLanguage = headers.get('accept-language');
        const ifNoneMatch = headers.get('if-none-match');
        const answer = drafts(published)
          ? callerMeeting(request, 'employee').then(() =>
              everyPageAnswer(content, slug, published, language, acceptLanguage, ifNoneMatch),
            )
          : staticPageAnswer(
              { stores: { content }, staticPages },
              slug,
              language,
              acceptLanguage,
              ifNoneMatch,
            );
        return whenReady(answer, (ready) => respond(ready, set.headers));
      },
      {
        params: AnySlugParams,
        query: PageQuery,
        response: {
          200: tagged(StaticPage),
          304: notModified,
          400: BadRequestProblem,
          401: Problem,
          403: Problem,
          404: Problem,
          500: Problem,
        },
        detail: {
          operationId: 'getStaticPage',
          summary: 'Read a static page',
          description:
            'Language: `?language=`, then Accept-Language, then `en`, then any published version. ' +
            '`?published=false` or `all` (employees) chooses among the unpublished or all versions instead, ' +
            'the answer `private, no-store`. Carries an ETag; a matching If-None-Match answers 304.',
          tags: TAGS,
        },
      },
    )
    .put(
      '/static-pages/:slug',
      ({ params, body, caller, request, set }) => {
        const slug = parsed(Slug, params.slug, 'path', 'slug');
        const page = parsed(StaticPageInput, body, 'body');
        if (page.slug !== undefined && page.slug !== slug) {
          const reason = `must be the slug of the path, ${JSON.stringify(slug)}, or left out`;
          throw fail('page.slug_mismatch', { invalidParams: [{ name: 'slug', reason }] });
        }
        const audit = auditContextOf(request, config, clock(), caller.sub);
        const written = content.writePage(slug, page, audit, ifMatchOf(request));
        return whenReady(written, ({ row, created }) => {
          set.status = created ? 201 : 200;
          if (created)
            set.headers.location = `/content/static-pages/${slug}?language=${row.language}`;
          const stored = toStaticPage(row);
          // The tag GET serves for these bytes, so the next write can send it back.
          set.headers.etag = etagOfJson(stored);
          return stored;
        });
      },
      {
        auth: 'employee',
        writes: 1,
        headers: IfMatch,
        response: {
          200: withETag(StaticPage),
          201: withLocation(StaticPage, 'The page in its language', true),
          400: BadRequestProblem,
          401: Problem,
          403: Problem,
          412: Problem,
        },
        detail: {
          operationId: 'putStaticPage',
          summary: 'Create or replace a static page in one language',
          description:
            '201 when created, 200 when replaced; omitted optional fields reset. Honours If-Match ' +
            'with the ETag of that language version (or *): 412 when it has changed since, or when ' +
            'there is none.',
          tags: TAGS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: inputSchema(StaticPageInput) } },
          },
        },
      },
    )
    .delete(
      '/static-pages/:slug',
      ({ params, query, caller, request }) => {
        const slug = parsed(Slug, params.slug, 'path', 'slug');
        const { language } = parsed(DeleteQuery, query, 'query');
        const audit = auditContextOf(request, config, clock(), caller.sub);
        return whenReady(
          content.removePage(slug, language, audit, ifMatchOf(request)),
          () => new Response(null, { status: 204 }),
        );
      },
      {
        auth: 'employee',
        writes: 1,
        query: DeleteQueryDoc,
        headers: IfMatch,
        response: {
          204: NoBody,
          400: BadRequestProblem,
          401: Problem,
          403: Problem,
          404: Problem,
          412: Problem,
        },
        detail: {
          operationId: 'deleteStaticPage',
          summary: 'Delete one language version of a static page',
          description: 'Honours If-Match with its ETag (or *): 412 when it has changed since.',
          tags: TAGS,
        },
      },
    );
