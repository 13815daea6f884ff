import { type StaticPageCache, warmStaticPageCache } from '@/content/cache';
import type { ContentStore } from '@/content/store';
import type { JobDetails } from './job';

/** Loads every published static page and the page list into the cache. */
export function run(deps: {
  stores: { content: ContentStore };
  staticPages: StaticPageCache;
}): JobDetails {
  const started = performance.now();
  const figures = warmStaticPageCache(deps.stores.content, deps.staticPages);
  return { ...figures, durationMs: Math.round(performance.now() - started) };
}
