import type { Clock } from '@/kernel/clock';
import type { ListingsStore } from '@/listings/store';
import type { JobContext, JobDetails } from './job';

/** Properties per transaction: short enough that a request never waits long behind one. */
export const RECONCILE_CHUNK = 1000;

/**
 * Recomputes every property's unit counters and published flag
 * from its units, chunk by chunk, yielding to the event loop between chunks
 * so requests keep flowing, and stopping after the current chunk on shutdown.
 */
export async function run(
  deps: { stores: { listings: ListingsStore }; clock: Clock },
  ctx: JobContext,
  chunk = RECONCILE_CHUNK,
): Promise<JobDetails> {
  const started = performance.now();
  let afterId: string | null = null;
  let scanned = 0;
  let repaired = 0;
  let chunks = 0;
  let longestChunkMs = 0;
  while (!ctx.shouldStop()) {
    const chunkStarted = performance.now();
    const result = await deps.stores.listings.reconcileUnitCounters({
      afterId,
      limit: chunk,
      now: deps.clock(),
    });
    longestChunkMs = Math.max(longestChunkMs, performance.now() - chunkStarted);
    if (result.lastId === null) break;
    scanned += result.scanned;
    repaired += result.repaired;
    chunks += 1;
    afterId = result.lastId;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return {
    scanned,
    repaired,
    chunks,
    stopped: ctx.shouldStop(),
    durationMs: Math.round(performance.now() - started),
    longestChunkMs: Math.round(longestChunkMs * 10) / 10,
  };
}
