import type { AppDeps } from '@/deps';
import type { JobDetails } from './scheduler';

/**
 * Clears expired calendar windows of every plan, stored and in
 * memory, so GET /api/v1/tokens/limits shows fresh windows even for
 * callers that made no request since.
 */
export async function run(deps: AppDeps): Promise<JobDetails> {
  return { ...(await deps.limiter.resetExpiredWindows(deps.clock())) };
}
