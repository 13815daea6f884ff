import type { Clock } from '@/kernel/clock';
import type { RateLimiter } from '@/rate-limit/limiter';
import type { JobDetails } from './job';

/**
 * Clears expired calendar windows of every plan, stored and in
 * memory, so GET /api/v1/tokens/limits shows fresh windows even for
 * callers that made no request since.
 */
export async function run(deps: { limiter: RateLimiter; clock: Clock }): Promise<JobDetails> {
  return { ...(await deps.limiter.resetExpiredWindows(deps.clock())) };
}
