import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { SQL } from 'bun';
import { type AddressBound, AddressLimit } from '@/accounts/address-limit';
import type { FailureLedger } from '@/accounts/guessing';
import {
  argon2idHasher,
  type BoundedHasher,
  boundedHasher,
  type PasswordHasher,
} from '@/accounts/hashing';
import type { HashingLimits } from '@/accounts/hashing-limits';
import type { PasswordResetLimits } from '@/accounts/password-reset';
import { RedisAddressLimit } from '@/accounts/redis-address-limit';
import { redisFailureLedger } from '@/accounts/redis-guessing';
import { sessionResolver } from '@/accounts/sessions';
import { TokenCutoffs } from '@/auth/revocation';
import { type SessionResolver, TokenService } from '@/auth/tokens';
import type { Config } from '@/config';
import { StaticPageCache } from '@/content/cache';
import { ReadCache } from '@/db/read-cache';
import { truncateWal } from '@/db/sqlite/checkpointer';
import type { Db } from '@/db/sqlite/client';
import { FeedWaits } from '@/events/waits';
import type { Clock } from '@/kernel/clock';
import { DeferredWork } from '@/kernel/deferred';
import type { Logger } from '@/logger';
import { type MailNotifications, mailNotificationsOf } from '@/mail/notifications';
import { type MailTransport, mailTransportOf } from '@/mail/transport';
import { RateLimiter } from '@/rate-limit/limiter';
import { RedisRateLimitStore } from '@/rate-limit/redis-store';
import { WriteLimiter } from '@/rate-limit/writes';
import { RedisConnection } from '@/redis/connection';
import { LiveInstances } from '@/redis/instances';
import { RedisNotices } from '@/redis/notices';
import { ReplicaListing, ReplicationMonitor } from '@/replication';
import { DiskMonitor } from '@/storage/monitor';
import { watchedVolumes } from '@/storage/volumes';
import { postgresStores, type Stores, sqliteStores } from '@/stores';
import { UsageRecorder } from '@/usage/recorder';
import { createWorkers } from '@/workers';
import type { Scheduler } from '@/workers/scheduler';

/** The services the domains, workers and routes share; built once by `buildDeps`. */
export interface AppDeps {
  config: Config;
  /** The SQLite database, when the service serves from SQLite (the default); absent on PostgreSQL. */
  db?: Db;
  /** The PostgreSQL pool, when `DATABASE_URL` names one; every store then keeps its rows there. */
  postgres?: SQL;
  /**
   * Every domain's store, all on `db` or all on `postgres` in the server;
   * only tests put some on another database (`CreateAppOptions.stores`).
   */
  stores: Stores;
  logger: Logger;
  clock: Clock;
  /** The replication's state from Litestream's figures, when the server runs under Litestream. */
  replication?: ReplicationMonitor;
  /** Free space of the database's, the backups' and a local replica's file systems, and writes refused for want of it. */
  disk: DiskMonitor;
  /** The replica's generations and snapshots, asked of Litestream on demand (REPLICA_URL). */
  replicaListing?: ReplicaListing;
  tokens: TokenService;
  /** The tokens' cut-offs by subject, kept current here and announced to the other instances. */
  tokenCutoffs: TokenCutoffs;
  /** Browser sessions by cookie value (the auth plugin, and the limiter counts cookie callers by them). */
  sessions: SessionResolver;
  /** Customer API rate limits; flushed at shutdown, reset by a worker. */
  limiter: RateLimiter;
  /** Write budgets of the routes outside the customer API, in the limiter's store. */
  writeLimiter: WriteLimiter;
  /** The usage figures behind the console's plots (src/usage); flushed at shutdown. */
  usage: UsageRecorder;
  /** This process among the instances: `<host>-<pid>-<random>`, recorded with the jobs it runs. */
  instance: string;
  /** The Redis shared by the instances (REDIS_URL); absent: all state stays in this process. */
  redis?: RedisConnection;
  /** With Redis: notices every instance hears (a plan change, so each forgets cached policies). */
  notices?: RedisNotices;
  /** With Redis: the instances counted through heartbeats (the limiter's fallback share). */
  instances?: LiveInstances;
  /** The cron worker jobs (`src/workers/`), scheduled only once started. */
  jobs?: Scheduler;
  /**
   * The read cache (properties, list pages and totals, transactions, static
   * pages): one bounded LRU, each answer dropped by the writes that can change it.
   */
  readCache: ReadCache;
  /** The static pages' view of `readCache`, shared by the routes and the warm job. */
  staticPages: StaticPageCache;
  /** The account routes' bounds: hashing at once, sign-ups and passkey options per address. */
  accounts: AccountGuards;
  /** The change feed's long polls in this process: their caps, and what wakes each. */
  feedWaits: FeedWaits;
  /** Where the mail-delivery job sends the outbox's messages: the SMTP server, or the log. */
  mailer: MailTransport;
  /** Work answered before it is done (a password reset's lookup and mail); shutdown drains it. */
  deferred: DeferredWork;
}

/** The part of the deps a function uses: the services `K` and the stores `S`. */
export type DepsPart<K extends keyof AppDeps, S extends keyof Stores = never> = Pick<AppDeps, K> & {
  stores: Pick<Stores, S>;
};

export interface AccountGuards {
  /** Every password hash and verification of the server goes through it, its capacity shared by caller. */
  hasher: BoundedHasher;
  /** Requests that hash a password, per account and per address (in memory, or in Redis). */
  limits: HashingLimits;
  /** Sign-ups per address (in memory, or in Redis when instances share it). */
  signUps: AddressBound;
  /** Sign-in failures counted against guessing (the account store, or Redis when instances share it). */
  failures: FailureLedger;
  /** Passkey ceremony options per address (in memory, or in Redis). */
  passkeyOptions: AddressBound;
  /** Password reset requests per address and per typed email (in memory, or in Redis). */
  resets: PasswordResetLimits;
  /** The security notifications the operator left on (MAIL_NOTIFICATIONS). */
  notifications: MailNotifications;
  /** Verification links resent and changes of address asked for, per account (in memory, or in Redis). */
  emailLinks: AddressBound;
}

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
  /** Where mail goes; by default the SMTP server of the configuration, or the log without one. */
  mailer?: MailTransport;
  /**
   * Stores in place of the ones on `db` or `postgres`. Only tests pass any
   * (a PostgreSQL store, to run a domain's suites on it): src/index.ts never
   * does, because serving one domain from PostgreSQL while the others stay on
   * SQLite would split the service's data between two databases.
   */
  stores?: Partial<Stores>;
  /**
   * The read cache; by default one on the change feed of `db` or `postgres`.
   * Tests that pass a listings, customer or content store on another
   * database pass one on that database's feed, or get a cache that
   * remembers nothing (no feed here hears of that store's writes).
   */
  readCache?: ReadCache;
  /**
   * Where Litestream serves its metrics, when the server runs under it with
   * REPLICA_URL: the replication's state is then read from them for /health
   * and /metrics (src/replication/status.ts).
   */
  replicationMetricsUrl?: string;
}

const HOUR_MS = 60 * 60 * 1000;

/** Readable in /admin/jobs, and distinct for two apps in one process (tests). */
const instanceName = () => `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 4)}`;

/** `base`, with the stores `chosen` gives in place of its own (an undefined one keeps the base's). */
const withChosen = (base: Stores, chosen: Partial<Stores> = {}): Stores => ({
  ...base,
  ...Object.fromEntries(Object.entries(chosen).filter(([, store]) => store !== undefined)),
});

/** Every shared service, on one database; the jobs are built, not started. */
export function buildDeps({
  config,
  db,
  postgres,
  logger,
  clock = Date.now,
  hasher = argon2idHasher,
  redis = config.redis ? new RedisConnection(config.redis) : undefined,
  replicationMetricsUrl,
  mailer = mailTransportOf(config.mail, logger),
  ...chosen
}: CreateAppOptions): AppDeps {
  if (!db === !postgres) throw new Error('buildDeps: give either db (SQLite) or postgres');
  const tokens = new TokenService(config.jwtSecret, clock);
  // Either database's change feed tells the cache of every write, by any process or instance.
  const storeChosen = chosen.stores?.listings ?? chosen.stores?.customer ?? chosen.stores?.content;
  const readCache =
    chosen.readCache ??
    new ReadCache({
      ...(storeChosen ? {} : { db, postgres }),
      enabled: config.readCache,
      maxChars: config.readCacheChars,
    });
  const auditLimits = { rowsPerHour: config.auditRowsPerCallerPerHour };
  const stores = withChosen(
    db ? sqliteStores(db, readCache, auditLimits) : postgresStores(postgres!, auditLimits),
    chosen.stores,
  );
  const staticPages = new StaticPageCache(readCache, { enabled: config.staticPagesCache });
  const instance = instanceName();
  const instances = redis ? new LiveInstances(redis, instance) : undefined;
  instances?.start();
  const limiterStore = redis
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
  const tokenCutoffs = new TokenCutoffs(
    tokens,
    () => stores.accounts.tokenCutoffs(),
    cutoffNotices,
  );
  // At once on SQLite; src/index.ts waits for PostgreSQL's before it listens.
  Promise.resolve(tokenCutoffs.load()).catch((error: unknown) =>
    logger.error('token cut-offs not loaded', { error: String(error) }),
  );
  const usage = new UsageRecorder({ store: stores.usage, instance, clock, logger });
  const limiter = new RateLimiter({
    ...{ records: stores.customer, config, clock, logger, store: limiterStore },
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
    failures: redis ? redisFailureLedger(stores.accounts, redis) : stores.accounts.failures,
    limits: {
      perAddress: addressBound('hash-ip', config.accounts.passwordHashesPerIpPerMinute, 60_000),
      perAccount: addressBound(
        'hash-account',
        config.accounts.passwordHashesPerAccountPerMinute,
        60_000,
      ),
    },
    signUps: addressBound('signup', config.accounts.signUpsPerIpPerHour, HOUR_MS),
    passkeyOptions: addressBound(
      'passkey-options',
      config.accounts.passkeyOptionsPerIpPerMinute,
      60_000,
    ),
    resets: {
      perAddress: addressBound('reset-ip', config.accounts.passwordResetsPerIpPerHour, HOUR_MS),
      perAccount: addressBound(
        'reset-account',
        config.accounts.passwordResetsPerAccountPerHour,
        HOUR_MS,
      ),
    },
    notifications: mailNotificationsOf(config),
    emailLinks: addressBound('email-links', config.accounts.emailLinksPerAccountPerHour, HOUR_MS),
  };
  const feedWaits = new FeedWaits(stores.events, {
    perCaller: config.events.longPollsPerCaller,
    total: config.events.longPollsTotal,
  });
  const replication =
    config.replica && replicationMetricsUrl
      ? new ReplicationMonitor({
          ...{ replica: config.replica, databasePath: resolve(config.databasePath) },
          ...{ metricsUrl: replicationMetricsUrl, audit: stores.audit, logger, clock },
        })
      : undefined;
  const disk = new DiskMonitor({
    volumes: watchedVolumes(config, db !== undefined),
    ...{ thresholdBytes: config.diskFreeThresholdBytes, audit: stores.audit, logger, clock },
    whenLow: db && (() => truncateWal(db.$client)),
  });
  const replicaListing = config.replica
    ? new ReplicaListing({
        ...{ replica: config.replica, databasePath: config.databasePath, clock },
      })
    : undefined;
  const deps: AppDeps = {
    ...{ config, db, postgres, stores, logger, clock, tokens, tokenCutoffs, feedWaits },
    ...{ replication, replicaListing, disk },
    ...{ sessions: sessionResolver(stores.accounts, clock), limiter, writeLimiter, usage },
    ...{ instance, redis, notices, instances, readCache, staticPages, accounts, mailer },
    deferred: new DeferredWork((error) =>
      logger.error('deferred work failed', { error: String(error) }),
    ),
  };
  // Idle until src/index.ts starts it; the jobs close over the finished deps.
  deps.jobs = createWorkers(deps);
  return deps;
}
