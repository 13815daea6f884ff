import { hostname } from 'node:os';
import type { SQL } from 'bun';
import { type AnyElysia, Elysia } from 'elysia';
import { type AddressBound, AddressLimit } from '@/accounts/address-limit';
import { argon2idHasher, boundedHasher, type PasswordHasher } from '@/accounts/hashing';
import { RedisAddressLimit } from '@/accounts/redis-address-limit';
import { redisFailureLedger } from '@/accounts/redis-guessing';
import { sessionResolver } from '@/accounts/sessions';
import type { AccountStore } from '@/accounts/store';
import type { ApiDeps } from '@/api/deps';
import { sessionCookieNameOf } from '@/api/plugins/auth';
import { requestContext, withRequestContext } from '@/api/plugins/request-context';
import type { AuditLogStore } from '@/audit/store';
import { TokenCutoffs } from '@/auth/revocation';
import { TokenService } from '@/auth/tokens';
import type { Config } from '@/config';
import { StaticPageCache } from '@/content/cache';
import type { ContentStore } from '@/content/store';
import type { CustomerStore } from '@/customer/store';
import type { Db } from '@/db/client';
import type { DatabaseHealth } from '@/db/health';
import { ReadCache } from '@/db/read-cache';
import type { EventStore } from '@/events/store';
import type { IdempotencyStore } from '@/idempotency/store';
import type { Clock } from '@/kernel/clock';
import type { ListingsStore } from '@/listings/store';
import type { Logger } from '@/logger';
import { RateLimiter } from '@/rate-limit/limiter';
import { RedisRateLimitStore } from '@/rate-limit/redis-store';
import { WriteLimiter } from '@/rate-limit/writes';
import { RedisConnection } from '@/redis/connection';
import { LiveInstances } from '@/redis/instances';
import { RedisNotices } from '@/redis/notices';
import { postgresStores, sqliteStores } from '@/stores';
import { UsageRecorder } from '@/usage/recorder';
import type { WebhookStore } from '@/webhooks/store';
import { createWorkers } from '@/workers';
import type { JobRunStore } from '@/workers/job-runs';
import { accountsRoutes } from './api/accounts/routes';
import { adminRoutes } from './api/admin/routes';
import { contentRoutes } from './api/content/routes';
import { customerRoutes } from './api/customer/routes';
import type { RouteLike } from './api/docs/document';
import { docsRoutes } from './api/docs/routes';
import { withFastLane } from './api/fast-lane';
import { fastRoutes } from './api/fast-routes';
import { healthRoutes } from './api/health/routes';
import { idempotency, withIdempotency } from './api/idempotency';
import { listingsRoutes } from './api/listings/routes';
import { metricsRoutes } from './api/metrics/routes';
import { authPlugin, credentialChecksOf } from './api/plugins/auth';
import { errorHandler, withBackstop } from './api/plugins/error-handler';
import { type CredentialsFirst, jsonBody } from './api/plugins/json-body';
import { writeLimit } from './api/plugins/write-limit';
import { RequestMetrics } from './api/request/metrics';
import { withRoutableTarget } from './api/request/target';
import { routeTable } from './api/route-table';
import { withHsts, withHtmlPolicy } from './api/security-policy';
import { usageRoutes } from './api/usage/routes';
import { consolePage } from './web/console/routes';

export interface CreateAppOptions {
  config: Config;
  /** The SQLite database every store keeps its rows in, unless `postgres` is given. */
  db?: Db;
  /**
   * The PostgreSQL pool (`DATABASE_URL`): every store then keeps its rows
   * in PostgreSQL and no SQLite database is opened (docs/postgresql.md).
   */
  postgres?: SQL;
  logger: Logger;
  clock?: Clock;
  /** The password hash the bounded hasher runs (argon2id; tests pass a controllable one). */
  hasher?: PasswordHasher;
  /** The shared Redis; by default a new connection when the configuration names one. */
  redis?: RedisConnection;
  /**
   * The customer domain's store; by default the SQLite one on `db`. Only
   * tests pass another (the PostgreSQL store, to run the customer suites on
   * it): src/index.ts never does, because serving one domain from PostgreSQL
   * while the others stay on SQLite would split the service's data between
   * two databases (docs/postgresql.md, "Stores").
   */
  customerStore?: CustomerStore;
  /** The accounts domain's store; by default the SQLite one on `db`. Only tests pass another, as above. */
  accountStore?: AccountStore;
  /** The static pages' store; by default the SQLite one on `db`. Tests only, as `customerStore`. */
  contentStore?: ContentStore;
  /** Where `Idempotency-Key` claims are kept; by default SQLite on `db`. Tests only, as above. */
  idempotencyStore?: IdempotencyStore;
  /** What GET /health asks of the database; by default SQLite's check on `db`. Tests only. */
  databaseHealth?: DatabaseHealth;
  /** The change feed's store; by default SQLite on `db`. Only tests pass another, as above. */
  eventStore?: EventStore;
  /** The audit log's read side; by default SQLite on `db`. Only tests pass another, as above. */
  auditStore?: AuditLogStore;
  /** Webhook endpoints and deliveries; by default SQLite on `db`. Only tests pass another, as above. */
  webhookStore?: WebhookStore;
  /** The jobs' recorded runs; by default SQLite on `db`. Only tests pass another, as above. */
  jobRunStore?: JobRunStore;
  /**
   * The listings domain's store; by default the SQLite one on `db`. Only
   * tests pass another, for the reason `customerStore` gives.
   */
  listingsStore?: ListingsStore;
  /**
   * The read cache; by default one on the change feed of `db` or `postgres`.
   * Tests that pass a listings, customer or content store on another
   * database pass one on that database's feed, or get a cache that
   * remembers nothing (no feed here hears of that store's writes).
   */
  readCache?: ReadCache;
}

/** Routes mounted after the service's own (tests add probes through these). */
export type ExtraRoutes = (deps: ApiDeps) => AnyElysia;

const HOUR_MS = 60 * 60 * 1000;

/** Readable in /admin/jobs, and distinct for two apps in one process (tests). */
const instanceName = () => `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 4)}`;

export function buildDeps({
  config,
  db,
  postgres,
  logger,
  clock = Date.now,
  hasher = argon2idHasher,
  redis = config.redis ? new RedisConnection(config.redis) : undefined,
  ...chosen
}: CreateAppOptions): ApiDeps {
  if (!db === !postgres) throw new Error('buildDeps: give either db (SQLite) or postgres');
  const tokens = new TokenService(config.jwtSecret, clock);
  // Either database's change feed tells the cache of every write, by any process or instance.
  const storeChosen = chosen.listingsStore ?? chosen.customerStore ?? chosen.contentStore;
  const readCache =
    chosen.readCache ??
    new ReadCache({
      ...(storeChosen ? {} : { db, postgres }),
      enabled: config.readCache,
      maxChars: config.readCacheChars,
    });
  const auditLimits = { rowsPerHour: config.auditRowsPerCallerPerHour };
  const stores = db
    ? sqliteStores(db, readCache, auditLimits)
    : postgresStores(postgres!, auditLimits);
  const customer = chosen.customerStore ?? stores.customer;
  const accountStore = chosen.accountStore ?? stores.accounts;
  const content = chosen.contentStore ?? stores.content;
  const idempotencyStore = chosen.idempotencyStore ?? stores.idempotency;
  const databaseHealth = chosen.databaseHealth ?? stores.health;
  const events = chosen.eventStore ?? stores.events;
  const audit = chosen.auditStore ?? stores.audit;
  const webhooks = chosen.webhookStore ?? stores.webhooks;
  const jobRuns = chosen.jobRunStore ?? stores.jobRuns;
  const listings = chosen.listingsStore ?? stores.listings;
  const staticPages = new StaticPageCache(readCache, { enabled: config.staticPagesCache });
  const sessions = sessionResolver(accountStore, clock);
  const authOptions = {
    tokens,
    sessions,
    origins: config.publicOrigins,
    cookieName: sessionCookieNameOf(config),
  };
  const auth = authPlugin(authOptions);
  const keysPerCaller = config.idempotencyKeysPerCaller;
  const instance = instanceName();
  const instances = redis ? new LiveInstances(redis, instance) : undefined;
  instances?.start();
  const store = redis
    ? new RedisRateLimitStore(redis, { instances: () => instances?.count ?? 1 })
    : undefined;
  const notices = redis && config.redis ? new RedisNotices(redis, config.redis) : undefined;
  const policyNotices = notices && {
    announce: () => notices.announce('rate-limit-policies'),
    listen: (listener: () => void) => notices.listen('rate-limit-policies', listener),
  };
  const cutoffNotices = notices && {
    announce: (message: string) => notices.announce('token-cutoffs', message),
    listen: (listener: (message?: string) => void) => notices.listen('token-cutoffs', listener),
  };
  const tokenCutoffs = new TokenCutoffs(tokens, () => accountStore.tokenCutoffs(), cutoffNotices);
  // At once on SQLite; src/index.ts waits for PostgreSQL's before it listens.
  Promise.resolve(tokenCutoffs.load()).catch((error: unknown) =>
    logger.error('token cut-offs not loaded', { error: String(error) }),
  );
  const usage = new UsageRecorder({ store: stores.usage, instance, clock, logger });
  const limiter = new RateLimiter({
    ...{ records: customer, config, clock, logger, store },
    notices: policyNotices,
    calls: usage,
  });
  const writeLimiter = new WriteLimiter({ store: limiter.store, config, clock });
  const addressBound = (name: string, limit: number, windowMs: number): AddressBound =>
    redis
      ? new RedisAddressLimit(redis, {
          ...{ name, limit, windowMs, clock },
          instances: () => instances?.count ?? 1,
        })
      : new AddressLimit(limit, windowMs, clock);
  const accounts = {
    hasher: boundedHasher(hasher, config.hashing),
    failures: redis ? redisFailureLedger(accountStore, redis) : accountStore.failures,
    signUps: addressBound('signup', config.accounts.signUpsPerIpPerHour, HOUR_MS),
    passkeyOptions: addressBound(
      'passkey-options',
      config.accounts.passkeyOptionsPerIpPerMinute,
      60_000,
    ),
  };
  const deps: ApiDeps = {
    ...{
      config,
      db,
      postgres,
      customer,
      content,
      events,
      audit,
      webhooks,
      jobRuns,
      listings,
      logger,
      clock,
      tokens,
      tokenCutoffs,
      auth,
      sessions,
      staticPages,
      limiter,
      writeLimiter,
    },
    ...{
      readCache,
      accounts,
      accountStore,
      redis,
      instance,
      instances,
      notices,
      requests: new RequestMetrics(usage),
      usage,
    },
    databaseHealth,
    idempotency: idempotency({ store: idempotencyStore, clock, auth: authOptions, keysPerCaller }),
    writes: writeLimit(writeLimiter),
  };
  // Idle until src/index.ts starts it; the jobs close over the finished deps.
  deps.jobs = createWorkers(deps);
  return deps;
}

/** Builds the whole service; never listens (src/index.ts does). */
export function createApp(options: CreateAppOptions | ApiDeps, extraRoutes?: ExtraRoutes) {
  const deps = 'auth' in options ? options : buildDeps(options);
  let allowedMethods: (path: string) => string[] = () => [];
  let credentialsFirst: CredentialsFirst = () => undefined;

  const app = new Elysia()
    .use(requestContext({ corsOrigins: deps.config.corsOrigins }))
    .use(errorHandler({ logger: deps.logger, allowedMethods: (path) => allowedMethods(path) }))
    .use(jsonBody((request, route) => credentialsFirst(request, route)))
    .use(docsRoutes(() => routes))
    .use(healthRoutes(deps))
    .use(listingsRoutes(deps))
    .use(contentRoutes(deps))
    .use(customerRoutes(deps))
    .use(accountsRoutes(deps))
    .use(adminRoutes(deps))
    .use(usageRoutes(deps))
    .use(
      consolePage({
        tokens: deps.tokens,
        sessions: deps.sessions,
        origins: deps.config.publicOrigins,
      }),
    )
    .use(deps.config.metrics ? metricsRoutes(deps) : new Elysia({ name: 'no-metrics' }))
    .use(extraRoutes ? extraRoutes(deps) : new Elysia({ name: 'no-extra-routes' }));

  const routes: readonly RouteLike[] = app.routes;
  allowedMethods = routeTable(app.routes);
  credentialsFirst = credentialChecksOf(app.routes);
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
  options: CreateAppOptions | ApiDeps,
  extraRoutes?: ExtraRoutes,
  probe: ServiceProbe = {},
) {
  const deps = 'auth' in options ? options : buildDeps(options);
  const app = createApp(deps, extraRoutes);
  const metrics = deps.config.metrics ? deps.requests : undefined;
  const pipeline = withRequestContext(
    withBackstop(
      withIdempotency((request) => app.handle(request)),
      deps.logger,
    ),
    deps.logger,
    metrics,
  );
  const htmlPipeline = withHtmlPolicy(pipeline);
  // The front door comes first: everything after it reads one path (src/api/request/target.ts).
  const fullPipeline = withRoutableTarget(htmlPipeline, deps.logger);
  const fastLane = withFastLane(fastRoutes(deps), htmlPipeline, {
    logger: deps.logger,
    corsOrigins: deps.config.corsOrigins,
    onFastAnswer: probe.onFastAnswer,
    metrics,
  });
  const fetch = withHsts(withRoutableTarget(fastLane, deps.logger), deps.config);
  return { deps, app, fetch, fullPipeline };
}
