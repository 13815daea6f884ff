import type { ApiDeps } from '@/api/deps';
import { TAG_LIST_MAX } from '@/kernel/preconditions';
import type { FastRoute } from '../../fast-lane';
import { knownCaller, UNSETTLED } from '../../plugins/auth';
import { propertyListAnswer, propertyReadAnswer } from './read';

/**
 * GET /listings/properties/{id} in the fast lane: `propertyReadAnswer` for
 * an anonymous caller or a bearer token verified before. A query string, an
 * encoded id or an over-long If-None-Match (the route's 400) goes to the
 * full route, as does the 404 the core throws.
 */
export const fastPropertyRead = (deps: ApiDeps): FastRoute => ({
  prefix: '/listings/properties/',
  routePath: () => '/listings/properties/:id',
  answer(request, id, search) {
    if (search !== '' || id === '' || id.includes('/') || id.includes('%')) return;
    const ifNoneMatch = request.headers.get('if-none-match');
    if (ifNoneMatch !== null && ifNoneMatch.length > TAG_LIST_MAX) return;
    const caller = knownCaller(request, deps.tokens);
    if (caller === UNSETTLED) return;
    return propertyReadAnswer(deps, caller ?? null, id, ifNoneMatch);
  },
});

/**
 * GET /listings/properties in the fast lane: `propertyListAnswer` for a
 * bearer token verified before; the 400 of an invalid query the core throws
 * goes to the full route.
 */
export const fastPropertyList = (deps: ApiDeps): FastRoute => ({
  prefix: '/listings/properties',
  routePath: () => '/listings/properties',
  answer(request, rest, search) {
    if (rest !== '') return;
    const caller = knownCaller(request, deps.tokens);
    if (caller === UNSETTLED || caller === undefined) return;
    return propertyListAnswer(deps, caller, search);
  },
});
