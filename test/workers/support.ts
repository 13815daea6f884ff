import { createLogger } from '@/logger';
import type { JobDefinition } from '@/workers/job';
import { createScheduler } from '@/workers/scheduler';
import { createTestApp, manualClock } from '../support/harness';

/** A promise the test opens by hand: a job blocks on it. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A pattern that never fires while a test runs (midnight, 1 January). */
export const NEVER_SOON = '0 0 1 1 *';

/**
 * A scheduler of the given jobs on a fresh migrated database, a manual clock
 * and a logger whose lines the test can read.
 */
export function schedulerWith(jobs: JobDefinition[], clock = manualClock()) {
  const ctx = createTestApp({ clock });
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  const scheduler = createScheduler({ jobs, runs: ctx.deps.stores.jobRuns, logger, clock });
  return { ...ctx, scheduler, lines };
}
