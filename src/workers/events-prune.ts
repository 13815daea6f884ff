import type { AppDeps } from '@/deps';
import { whenReady } from '@/kernel/maybe-promise';
import type { JobDetails } from './scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the events older than EVENTS_RETENTION_DAYS, then the finished
 * webhook deliveries as old, those of the events just deleted and those
 * beyond each endpoint's quota (a pending one of a deleted event is failed).
 */
export function run(deps: AppDeps) {
  const cutoff = deps.clock() - deps.config.events.retentionDays * DAY_MS;
  return whenReady(deps.events.pruneEvents(cutoff), (pruned) =>
    whenReady(
      deps.webhooks.pruneDeliveries(
        cutoff,
        deps.config.webhookQuotas.finishedDeliveriesKeptPerEndpoint,
      ),
      (deliveries): JobDetails => ({ pruned, deliveries }),
    ),
  );
}
