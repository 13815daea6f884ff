import { Elysia } from 'elysia';
import { docExtension } from '../docs/extensions';

/** Requests routed to a route that declares `badBody: 'unprocessable'`. */
const unprocessable = new WeakSet<Request>();

/** Whether the route this request was routed to answers a bad body with 422. */
export const answersUnprocessable = (request: Request): boolean => unprocessable.has(request);

/**
 * `badBody: 'unprocessable'` on a route, or on a guard around a group: a body
 * that is valid JSON but breaks the route's schema answers 422 with the field
 * messages (docs/errors.md) instead of a bare 400. The mark is set in
 * `transform`, which Elysia runs before validation, so the error handler
 * knows the matched route's choice when the validation fails.
 */
export const bodyRules = new Elysia({ name: 'body-rules' }).macro({
  badBody: (answer: 'unprocessable' | 'malformed') =>
    answer === 'unprocessable'
      ? {
          // Read by the document (src/api/docs): a route with a body lists 422.
          detail: docExtension({ 'x-bad-body': answer }),
          transform({ request }) {
            unprocessable.add(request);
          },
        }
      : {},
});
