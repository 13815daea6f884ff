import type { AppDeps } from '@/deps';
import type { JobContext, JobDetails } from './scheduler';

/** CONTRACT §9: clears expired calendar windows of every plan, in the store and in memory. */
export async function run(_deps: AppDeps, _ctx: JobContext): Promise<JobDetails> {
  // Will call the customer API's plan-window reset (issue 8) once that feature is merged.
  return { skipped: 'not wired yet' };
}
