import type { ApiDeps } from '@/api/deps';
import type { FastRoute } from '../fast-lane';
import { staticPageAnswer, staticPageListAnswer } from './read';

/**
 * The public static-page reads in the fast lane (they need no credential):
 * the list and a page without `?language=`, answered by the routes' cores.
 * A query string goes to the full route, as does the 404 the core throws.
 * With a content store that answers later the answer is a promise, still
 * answered here; on SQLite it is answered at once.
 */
export const fastStaticPageRead = (deps: ApiDeps): FastRoute => ({
  prefix: '/content/static-pages',
  routePath: (rest) =>
    rest === ''
      ? '/content/static-pages'
      : rest === '/'
        ? '/content/static-pages/'
        : '/content/static-pages/:slug',
  answer(request, rest, search) {
    if (search !== '') return;
    const ifNoneMatch = request.headers.get('if-none-match');
    if (rest === '' || rest === '/') return staticPageListAnswer(deps, ifNoneMatch);
    if (rest[0] !== '/') return;
    const acceptLanguage = request.headers.get('accept-language');
    return staticPageAnswer(deps, rest.slice(1), undefined, acceptLanguage, ifNoneMatch);
  },
});
