import type { AddressLimit } from '@/accounts/address-limit';
import type { PasswordHasher } from '@/accounts/hashing';
import type { TokenService } from '@/auth/tokens';
import type { Config } from '@/config';
import type { StaticPageCache } from '@/content/cache';
import type { Db } from '@/db/client';
import type { ResponseMemo } from '@/db/response-memo';
import type { Clock } from '@/kernel/clock';
import type { PropertyReadCache } from '@/listings/properties/read-cache';
import type { Logger } from '@/logger';
import type { RateLimiter } from '@/rate-limit/limiter';
import type { Scheduler } from '@/workers/scheduler';

/** The services the domains, workers and routes share; built once by `buildDeps`. */
export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  clock: Clock;
  tokens: TokenService;
  /** Customer API rate limits; flushed at shutdown, reset by a worker. */
  limiter: RateLimiter;
  /** The cron worker jobs (`src/workers/`), scheduled only once started. */
  jobs?: Scheduler;
  /** Static-page read cache, shared by the routes and the warm job. */
  staticPages: StaticPageCache;
  /** GET /listings/properties/{id} representations, dropped on any write. */
  propertyReads: PropertyReadCache;
  /** Answers of the list reads (properties, transactions), dropped on any write. */
  listAnswers: ResponseMemo;
  /** The account routes' bounds: hashing at once, sign-ups and passkey options per address. */
  accounts: AccountGuards;
}

export interface AccountGuards {
  /** Every password hash and verification of the server goes through it. */
  hasher: PasswordHasher;
  signUps: AddressLimit;
  passkeyOptions: AddressLimit;
}
