import type { AppDeps } from '@/deps';
import { pruneEvents } from '@/events/feed';
import { pruneDeliveries } from '@/webhooks/deliveries';
import type { JobDetails } from './scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes the events, and the finished webhook deliveries, older than EVENTS_RETENTION_DAYS. */
export function run(deps: AppDeps): JobDetails {
  const cutoff = deps.clock() - deps.config.events.retentionDays * DAY_MS;
  return { pruned: pruneEvents(deps.db, cutoff), deliveries: pruneDeliveries(deps.db, cutoff) };
}
