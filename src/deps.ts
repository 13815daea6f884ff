import type { TokenService } from '@/auth/tokens';
import type { Config } from '@/config';
import type { Db } from '@/db/client';
import type { Logger } from '@/logger';
import type { RateLimiter } from '@/rate-limit/limiter';
import type { Scheduler } from '@/workers/scheduler';
import type { StaticPageCache } from './api/content/cache';
import type { PropertyReadCache } from './api/listings/properties/read-cache';
import type { authPlugin } from './api/plugins/auth';
import type { ResponseMemo } from './api/response-memo';

/** Milliseconds since the epoch; injected so tests never sleep on real timers. */
export type Clock = () => number;

/** Everything a feature plugin may use; built once by `createApp`. */
export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  clock: Clock;
  tokens: TokenService;
  /** Customer API rate limits; flushed at shutdown, reset by a worker. */
  limiter: RateLimiter;
  /** The shared auth plugin (`auth` and `optionalAuth` macros). */
  auth: ReturnType<typeof authPlugin>;
  /** The cron worker jobs (`src/workers/`), scheduled only once started. */
  jobs?: Scheduler;
  /** Static-page read cache, shared by the routes and the warm job. */
  staticPages: StaticPageCache;
  /** GET /listings/properties/{id} representations, dropped on any write. */
  propertyReads: PropertyReadCache;
  /** Answers of the list reads (properties, transactions), dropped on any write. */
  listAnswers: ResponseMemo;
}
