import type { VerifiedCaller } from '@/auth/tokens';
import type { AppDeps } from '@/deps';
import { idempotency } from './idempotency';
import {
  type AuthRequirement,
  authPlugin,
  callerMeeting,
  sessionCookieNameOf,
} from './plugins/auth';
import { writeLimit } from './plugins/write-limit';
import { RequestMetrics } from './request/metrics';

/**
 * What a route plugin may use: the shared services plus the auth plugin
 * (`auth` and `optionalAuth` macros), the `idempotent` and the `writes` macros.
 */
export interface ApiDeps extends AppDeps {
  auth: ReturnType<typeof authPlugin>;
  /** The `auth` macro's check inside a handler: the caller, or 401 / 403. */
  callerMeeting: (request: Request, requirement: AuthRequirement) => Promise<VerifiedCaller>;
  idempotency: ReturnType<typeof idempotency>;
  /** The `writes` macro: the per-caller write budget of a route outside the customer API. */
  writes: ReturnType<typeof writeLimit>;
  /** Requests by route and status, with latencies (GET /metrics). */
  requests: RequestMetrics;
}

/** The shared services plus the transport's plugins built on them. */
export function withTransport(deps: AppDeps): ApiDeps {
  const { config, tokens, sessions, clock } = deps;
  const auth = {
    ...{ tokens, sessions, origins: config.publicOrigins },
    cookieName: sessionCookieNameOf(config),
  };
  return {
    ...deps,
    auth: authPlugin(auth),
    callerMeeting: (request, requirement) => callerMeeting(request, auth, requirement),
    idempotency: idempotency({
      ...{ store: deps.stores.idempotency, clock, auth },
      keysPerCaller: config.idempotencyKeysPerCaller,
    }),
    writes: writeLimit(deps.writeLimiter),
    requests: new RequestMetrics(deps.usage),
  };
}
