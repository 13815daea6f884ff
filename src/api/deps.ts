import type { AppDeps } from '@/deps';
import type { authPlugin } from './plugins/auth';
import type { RequestMetrics } from './request/metrics';

/** What a route plugin may use: the shared services plus the auth plugin (`auth` and `optionalAuth` macros). */
export interface ApiDeps extends AppDeps {
  auth: ReturnType<typeof authPlugin>;
  /** Requests by route and status, with latencies (GET /metrics). */
  requests: RequestMetrics;
}
