/**
 * The content type of a JSON answer a hot read builds itself as a
 * `Response`, as Elysia would build it for a returned object.
 *
 * Why: Elysia validates a returned *object* against the route's response
 * schema on every request, and skips that for a returned `Response`. On the
 * hot reads (a property, a list of 30, the customer API reads) that
 * validation is a large share of the request's CPU time (docs/performance.md). Those routes
 * still declare their response schemas — for the OpenAPI document and the
 * handler's types — and their tests check every body against them.
 */
export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';
