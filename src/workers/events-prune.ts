import type { AppDeps } from '@/deps';
import { whenReady } from '@/rate-limit/store';
import type { JobDetails } from './scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes the events, and the finished webhook deliveries, older than EVENTS_RETENTION_DAYS. */
export function run(deps: AppDeps) {
  const cutoff = deps.clock() - deps.config.events.retentionDays * DAY_MS;
  return whenReady(deps.events.pruneEvents(cutoff), (pruned) =>
    whenReady(
      deps.webhooks.pruneDeliveries(cutoff),
      (deliveries): JobDetails => ({ pruned, deliveries }),
    ),
  );
}
