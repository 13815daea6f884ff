import type { AppDeps } from '@/deps';
import type { JobContext, JobDetails } from './scheduler';

/** CONTRACT §9: loads every published static page and the page list into the cache. */
export async function run(_deps: AppDeps, _ctx: JobContext): Promise<JobDetails> {
  // Will call the static-pages cache warm (issue 8) once that feature is merged.
  return { skipped: 'not wired yet' };
}
