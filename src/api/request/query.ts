import type { z } from 'zod';
import type { VerifiedCaller } from '@/auth/tokens';
import { parametersOf, parseListQuery, shapeOf } from '@/kernel/query';
import { searchOf } from './url';

/**
 * A query schema for the route's `query` option, read by the OpenAPI
 * document only: typed as clients write the parameters (`parametersOf`),
 * and never a refusal, since the query is read from the URL by the one
 * parser (src/kernel/query.ts) after the `auth` check, so 401/403 come
 * before a bad query's 400. The property list and the customer API's
 * transactions read their raw query string themselves (their answers are
 * cached under it) and take only this.
 */
export const documentedQuery = <T extends z.ZodType>(schema: T) =>
  schema.catch(() => ({}) as z.output<T>);

/**
 * What a `handle`d handler reads besides its query: the route's request, the
 * caller its `auth` check resolved and its path parameters.
 */
export interface QueryRouteContext<P = unknown> {
  request: Request;
  caller: VerifiedCaller;
  params: P;
}

/**
 * A route's query, declared once by its zod schema: `documented` goes into
 * the route's `query` option; `handle` wraps the route's handler, which gets
 * the query parsed once (its shape read from the schema at load), never the
 * raw URL. Anything the schema refuses, an unknown parameter or a scalar
 * given twice is the 400 `query.invalid`.
 */
export function routeQuery<S extends z.ZodObject>(schema: S) {
  const shape = shapeOf(schema);
  return {
    documented: documentedQuery(parametersOf(schema)),
    // Destructured on purpose: Elysia reads a handler's source to know which
    // parts of the context to build, and a context passed on whole builds them all.
    handle:
      <P, R>(handler: (query: z.output<S>, context: QueryRouteContext<P>) => R) =>
      ({ request, caller, params }: QueryRouteContext<P>): R =>
        handler(parseListQuery(searchOf(request.url), shape, schema), { request, caller, params }),
  };
}
