/**
 * A JSON answer built by the handler itself, as Elysia would build it for a
 * returned object (`Response.json`, `application/json;charset=utf-8`; the
 * headers of `set` are merged in by Elysia as usual).
 *
 * Why: Elysia validates a returned *object* against the route's response
 * schema on every request, and skips that for a returned `Response`. On the
 * hot reads (a property, a list of 30, the customer API reads) that
 * validation is a large share of the request's CPU time (docs/performance.md). Those routes
 * still declare their response schemas — for the OpenAPI document and the
 * handler's types — and their tests check every body against them.
 */
export const jsonResponse = (body: unknown, status = 200): Response =>
  Response.json(body, { status });

export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';

/** The same, for a body already serialised (to digest it for an ETag, say). */
export const jsonTextResponse = (text: string, status = 200): Response =>
  new Response(text, { status, headers: { 'content-type': JSON_CONTENT_TYPE } });
