import type { AppDeps } from '@/deps';
import type { JobContext, JobDetails } from './scheduler';

/**
 * CONTRACT §9: recomputes every property's unit counters and published flag
 * from its units, in chunks, stopping after the current chunk on `ctx.shouldStop()`.
 */
export async function run(_deps: AppDeps, _ctx: JobContext): Promise<JobDetails> {
  // Will call the listings units reconcile (issue 8) once that feature is merged.
  return { skipped: 'not wired yet' };
}
