import type { SQL } from 'bun';
import type { AddressBound } from '@/accounts/address-limit';
import type { FailureLedger } from '@/accounts/guessing';
import type { BoundedHasher } from '@/accounts/hashing';
import type { AccountStore } from '@/accounts/store';
import type { AuditLogStore } from '@/audit/store';
import type { TokenCutoffs } from '@/auth/revocation';
import type { TokenService } from '@/auth/tokens';
import type { Config } from '@/config';
import type { StaticPageCache } from '@/content/cache';
import type { ContentStore } from '@/content/store';
import type { CustomerStore } from '@/customer/store';
import type { Db } from '@/db/client';
import type { DatabaseHealth } from '@/db/health';
import type { ReadCache } from '@/db/read-cache';
import type { EventStore } from '@/events/store';
import type { Clock } from '@/kernel/clock';
import type { ListingsStore } from '@/listings/store';
import type { Logger } from '@/logger';
import type { RateLimiter } from '@/rate-limit/limiter';
import type { WriteLimiter } from '@/rate-limit/writes';
import type { RedisConnection } from '@/redis/connection';
import type { LiveInstances } from '@/redis/instances';
import type { RedisNotices } from '@/redis/notices';
import type { WebhookStore } from '@/webhooks/store';
import type { JobRunStore } from '@/workers/job-runs';
import type { Scheduler } from '@/workers/scheduler';

/** The services the domains, workers and routes share; built once by `buildDeps`. */
export interface AppDeps {
  config: Config;
  /** The SQLite database, when the service serves from SQLite (the default); absent on PostgreSQL. */
  db?: Db;
  /** The PostgreSQL pool, when `DATABASE_URL` names one; every store then keeps its rows there. */
  postgres?: SQL;
  logger: Logger;
  clock: Clock;
  tokens: TokenService;
  /** The tokens' cut-offs by subject, kept current here and announced to the other instances. */
  tokenCutoffs: TokenCutoffs;
  /**
   * The customer domain's rows (transactions, plans, limits, calendar
   * usage). Always the SQLite store on `db` in the server; see
   * `CreateAppOptions.customerStore`.
   */
  customer: CustomerStore;
  /**
   * The accounts domain's rows (users, sessions, passkeys, used challenges,
   * sign-in failures). Always the SQLite store on `db` in the server; see
   * `CreateAppOptions.accountStore`.
   */
  accountStore: AccountStore;
  /** The static pages. Always the SQLite store on `db` in the server, as `customer`. */
  content: ContentStore;
  /** Whether the database answers (GET /health); SQLite's check on `db` in the server. */
  databaseHealth: DatabaseHealth;
  /** The change feed's events (read, prune); always the SQLite store on `db` in the server. */
  events: EventStore;
  /** The audit log's read side and retention; always the SQLite one on `db` in the server. */
  audit: AuditLogStore;
  /** Webhook endpoints and deliveries; always the SQLite store on `db` in the server. */
  webhooks: WebhookStore;
  /** The jobs' recorded runs; always the SQLite store on `db` in the server. */
  jobRuns: JobRunStore;
  /**
   * The listings domain's properties (reads, the list, creates). Always the
   * SQLite store on `db` in the server; see `CreateAppOptions.listingsStore`.
   */
  listings: ListingsStore;
  /** Customer API rate limits; flushed at shutdown, reset by a worker. */
  limiter: RateLimiter;
  /** Write budgets of the routes outside the customer API, in the limiter's store. */
  writeLimiter: WriteLimiter;
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
}

export interface AccountGuards {
  /** Every password hash and verification of the server goes through it. */
  hasher: BoundedHasher;
  /** Sign-ups per address (in memory, or in Redis when instances share it). */
  signUps: AddressBound;
  /** Sign-in failures counted against guessing (the account store, or Redis when instances share it). */
  failures: FailureLedger;
  /** Passkey ceremony options per address (in memory, or in Redis). */
  passkeyOptions: AddressBound;
}
