import type { Config } from '@/config';
import type { EventStore } from '@/events/store';
import type { Clock } from '@/kernel/clock';
import { whenReady } from '@/kernel/maybe-promise';
import type { WebhookStore } from '@/webhooks/store';
import type { JobDetails } from './job';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the events older than EVENTS_RETENTION_DAYS, then the finished
 * webhook deliveries as old, those of the events just deleted and those
 * beyond each endpoint's quota (a pending one of a deleted event is failed).
 */
export function run(deps: {
  stores: { events: EventStore; webhooks: WebhookStore };
  clock: Clock;
  config: Config;
}) {
  const cutoff = deps.clock() - deps.config.events.retentionDays * DAY_MS;
  return whenReady(deps.stores.events.pruneEvents(cutoff), (pruned) =>
    whenReady(
      deps.stores.webhooks.pruneDeliveries(
        cutoff,
        deps.config.webhookQuotas.finishedDeliveriesKeptPerEndpoint,
        deps.clock(),
      ),
      (deliveries): JobDetails => ({ pruned, deliveries }),
    ),
  );
}
