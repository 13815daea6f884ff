import { type AnyElysia, Elysia } from 'elysia';
import { type ApiDeps, withTransport } from '@/api/deps';
import { requestContext, withRequestContext } from '@/api/plugins/request-context';
import { type AppDeps, buildDeps, type CreateAppOptions } from '@/deps';
import { accountsRoutes } from './api/accounts/routes';
import { adminRoutes } from './api/admin/routes';
import { consoleRoutes } from './api/console/routes';
import { contentRoutes } from './api/content/routes';
import { customerRoutes } from './api/customer/routes';
import type { RouteLike } from './api/docs/document';
import { docsRoutes } from './api/docs/routes';
import { type ErrorFamilyOf, errorFamiliesOf, PROBLEMS_ONLY } from './api/error-family';
import { withFastLane } from './api/fast-lane';
import { fastRoutes } from './api/fast-routes';
import { healthRoutes } from './api/health/routes';
import { withIdempotency } from './api/idempotency';
import { createdPropertyRoutes, listingsRoutes } from './api/listings/routes';
import { metricsRoutes } from './api/metrics/routes';
import { type Handle, type Stage, throughStages } from './api/pipeline';
import { credentialChecksOf } from './api/plugins/auth';
import { errorHandler, withBackstop } from './api/plugins/error-handler';
import {
  bodyRoutesOf,
  type CredentialsFirst,
  jsonBody,
  type ReadsBody,
} from './api/plugins/json-body';
import { withRoutableTarget } from './api/request/target';
import { routeTable } from './api/route-table';
import { withHsts, withHtmlPolicy } from './api/security-policy';
import { usageRoutes } from './api/usage/routes';
import { landingPage } from './web/landing/routes';

/** Routes mounted after the service's own (tests add probes through these). */
export type ExtraRoutes = (deps: ApiDeps) => AnyElysia;

/** What the service is built from: its options, its shared services, or those with the transport's plugins. */
type ServiceSource = CreateAppOptions | AppDeps | ApiDeps;

const apiDepsOf = (source: ServiceSource): ApiDeps => {
  if ('auth' in source) return source;
  return withTransport('tokens' in source ? source : buildDeps(source));
};

/** Builds the whole service; never listens (src/index.ts does). */
export function createApp(source: ServiceSource, extraRoutes?: ExtraRoutes) {
  const deps = apiDepsOf(source);
  let allowedMethods: (path: string) => string[] = () => [];
  let credentialsFirst: CredentialsFirst = () => undefined;
  let readsBody: ReadsBody = () => true;
  let familyOf: ErrorFamilyOf = PROBLEMS_ONLY;
  const errorFamilyOf: ErrorFamilyOf = (path) => familyOf(path);

  const app = new Elysia()
    .use(requestContext({ corsOrigins: deps.config.corsOrigins, errorFamilyOf }))
    .use(
      errorHandler({
        logger: deps.logger,
        allowedMethods: (path) => allowedMethods(path),
        errorFamilyOf,
        storageRefused: (failure) => deps.disk.refused(failure),
      }),
    )
    .use(
      jsonBody(
        (request, route) => credentialsFirst(request, route),
        (method, route) => readsBody(method, route),
      ),
    )
    .use(docsRoutes(() => routes))
    .use(landingPage())
    .use(healthRoutes(deps))
    .use(listingsRoutes(deps))
    .use(createdPropertyRoutes(deps))
    .use(contentRoutes(deps))
    .use(customerRoutes(deps))
    .use(accountsRoutes(deps))
    .use(adminRoutes(deps))
    .use(usageRoutes(deps))
    .use(consoleRoutes(deps))
    .use(deps.config.metrics ? metricsRoutes(deps) : new Elysia({ name: 'no-metrics' }))
    .use(extraRoutes ? extraRoutes(deps) : new Elysia({ name: 'no-extra-routes' }));

  const routes: readonly RouteLike[] = app.routes;
  allowedMethods = routeTable(app.routes);
  familyOf = errorFamiliesOf(app.routes);
  credentialsFirst = credentialChecksOf(app.routes);
  readsBody = bodyRoutesOf(app.routes);
  deps.requests.useRoutes(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;

/** What a test may watch of the service; the server passes none. */
export interface ServiceProbe {
  /** Called for each request the fast lane answered. */
  onFastAnswer?: (request: Request) => void;
}

/**
 * The app plus the outer request pipeline (fast lane for the hot reads,
 * request context, backstop, safe retries) that the server and the tests
 * both use: `fetch` is what `Bun.serve` calls.
 */
export function createService(
  source: ServiceSource,
  extraRoutes?: ExtraRoutes,
  probe: ServiceProbe = {},
) {
  const deps = apiDepsOf(source);
  const app = createApp(deps, extraRoutes);
  const errorFamilyOf = errorFamiliesOf(app.routes);
  const metrics = deps.config.metrics ? deps.requests : undefined;
  // The request pipeline, in the order a request passes it (docs/request-pipeline.md).
  const hsts: Stage = (next) => withHsts(next, deps.config);
  // The front door: everything after it reads one path (src/api/request/target.ts).
  const routableTarget: Stage = (next) => withRoutableTarget(next, deps.logger);
  // Hot reads answered here; the rest, and what a fast route declines, go on.
  const fastLane: Stage = (next) =>
    withFastLane(fastRoutes(deps), next, {
      logger: deps.logger,
      corsOrigins: deps.config.corsOrigins,
      onFastAnswer: probe.onFastAnswer,
      metrics,
      errorFamilyOf,
    });
  const requestContextOf: Stage = (next) => withRequestContext(next, deps.logger, metrics);
  const backstop: Stage = (next) => withBackstop(next, deps.logger, errorFamilyOf);
  const elysia: Handle = (request) => app.handle(request);
  const afterFastLane = [withHtmlPolicy, requestContextOf, backstop, withIdempotency];
  const fetch = throughStages([hsts, routableTarget, fastLane, ...afterFastLane], elysia);
  // The same without the fast lane: tests compare the two lanes' answers.
  const fullPipeline = throughStages([routableTarget, ...afterFastLane], elysia);
  return { deps, app, fetch, fullPipeline };
}
