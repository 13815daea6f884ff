import { Elysia } from 'elysia';
import type { Family } from './docs/components';
import { docExtension } from './docs/extensions';

/**
 * What a route group declares about its errors: the body family of every
 * answer under `mount`, its group's prefix. The family covers the paths
 * under the mount that no route matches too, and the answers given before
 * a route is chosen (404, 405, 413, 414, the limiter's 429, a 500).
 */
export interface ErrorScope {
  family: Family;
  mount: string;
}

/** `errorScope: ErrorScope` on a group's guard; read by `errorFamiliesOf` and the document. */
export const errorScopes = new Elysia({ name: 'error-scope' }).macro({
  errorScope: ({ family, mount }: ErrorScope) => ({
    detail: docExtension({ 'x-error-family': family, 'x-error-mount': mount }),
  }),
});

/** A group of routes under `scope.mount` whose errors are `scope.family`'s. */
export const scopedGroup = (name: string, scope: ErrorScope) =>
  new Elysia({ name, prefix: scope.mount }).use(errorScopes).guard({ errorScope: scope });

/** Whether `path` (`pathOf`, the one the router matches) is `mount` or under it. */
export const isUnder = (path: string, mount: string): boolean =>
  path.startsWith(mount) && (path.length === mount.length || path[mount.length] === '/');

export type ErrorFamilyOf = (path: string) => Family;

/** Before the routes exist, and where no group declared a family: problem details. */
export const PROBLEMS_ONLY: ErrorFamilyOf = () => 'problem';

/**
 * The error family of a path, from the scopes the app's groups declared:
 * the family of the longest mount holding it, problem details elsewhere.
 */
export function errorFamiliesOf(routes: readonly { hooks: { detail?: unknown } }[]): ErrorFamilyOf {
  const scopes = new Map<string, Family>();
  for (const { hooks } of routes) {
    const detail = hooks.detail as Record<string, unknown> | undefined;
    const mount = detail?.['x-error-mount'];
    const family = detail?.['x-error-family'];
    if (typeof mount === 'string' && (family === 'customer' || family === 'problem'))
      scopes.set(mount, family);
  }
  if (scopes.size === 0) return PROBLEMS_ONLY;
  const longestFirst = [...scopes].sort(([a], [b]) => b.length - a.length);
  return (path) => {
    for (const [mount, family] of longestFirst) if (isUnder(path, mount)) return family;
    return 'problem';
  };
}
