import { warmStaticPageCache } from '@/content/cache';
import type { AppDeps } from '@/deps';
import type { JobDetails } from './scheduler';

/** Loads every published static page and the page list into the cache. */
export function run(deps: AppDeps): JobDetails {
  const started = performance.now();
  const figures = warmStaticPageCache(deps.content, deps.staticPages);
  return { ...figures, durationMs: Math.round(performance.now() - started) };
}
