import type { AppDeps } from '@/deps';
import { onEvents } from '@/events/signal';
import { hasEnabledEndpoint } from '@/webhooks/endpoints';

/**
 * Runs `webhook-delivery` as soon as events commit, instead of at its next
 * tick, when some endpoint may want them: one run at a time, and at most one
 * more after it for the events that came meanwhile. A run refused (the cron
 * run is going, or the service is stopping) is left to the schedule.
 * Answers the unsubscribe.
 */
export function kickDeliveriesOnEvents(deps: AppDeps): () => void {
  let running = false;
  let again = false;
  const kick = () => {
    if (running) {
      again = true;
      return;
    }
    if (!deps.jobs || !hasEnabledEndpoint(deps.db)) return;
    running = true;
    // With shared leadership the kick takes the job's lease like a tick (its
    // time as the tick), so it never overlaps a run on another instance and
    // no delivery goes out twice.
    const run = deps.redis
      ? deps.jobs.trigger('webhook-delivery', deps.clock())
      : deps.jobs.runNow('webhook-delivery');
    run
      .catch(() => undefined)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  return onEvents(kick);
}
