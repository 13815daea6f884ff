import type { SessionResolver } from '@/auth/tokens';
import type { AppDeps } from '@/deps';
import type { UsageRecorder } from '@/usage/recorder';
import type { idempotency } from './idempotency';
import type { authPlugin } from './plugins/auth';
import type { writeLimit } from './plugins/write-limit';
import type { RequestMetrics } from './request/metrics';

/**
 * What a route plugin may use: the shared services plus the auth plugin
 * (`auth` and `optionalAuth` macros), the `idempotent` and the `writes` macros.
 */
export interface ApiDeps extends AppDeps {
  auth: ReturnType<typeof authPlugin>;
  idempotency: ReturnType<typeof idempotency>;
  /** The `writes` macro: the per-caller write budget of a route outside the customer API. */
  writes: ReturnType<typeof writeLimit>;
  /** Browser sessions by cookie value (the limiter counts cookie callers by them). */
  sessions: SessionResolver;
  /** Requests by route and status, with latencies (GET /metrics). */
  requests: RequestMetrics;
  /** The usage figures behind the console's plots (src/usage). */
  usage: UsageRecorder;
}
