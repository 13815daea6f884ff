import { onEvents } from '@/events/signal';
import type { Clock } from '@/kernel/clock';
import { whenReady } from '@/kernel/maybe-promise';
import type { RedisConnection } from '@/redis/connection';
import type { WebhookStore } from '@/webhooks/store';
import type { Scheduler } from './scheduler';

/**
 * Runs `webhook-delivery` as soon as events commit, instead of at its next
 * tick, when some endpoint may want them: one run at a time, and at most one
 * more after it for the events that came meanwhile. A run refused (the cron
 * run is going, or the service is stopping) is left to the schedule.
 * Answers the unsubscribe.
 */
export function kickDeliveriesOnEvents(deps: {
  stores: { webhooks: WebhookStore };
  jobs?: Scheduler;
  redis?: RedisConnection;
  clock: Clock;
}): () => void {
  let running = false;
  let again = false;
  const finish = () => {
    running = false;
    if (again) {
      again = false;
      kick();
    }
  };
  const kick = () => {
    if (running) {
      again = true;
      return;
    }
    const jobs = deps.jobs;
    if (!jobs) return;
    running = true;
    const start = (wanted: boolean) => {
      if (!wanted) return finish();
      // With shared leadership the kick takes the job's lease like a tick (its
      // time as the tick), so it never overlaps a run on another instance and
      // no delivery goes out twice.
      const run = deps.redis
        ? jobs.trigger('webhook-delivery', deps.clock())
        : jobs.runNow('webhook-delivery');
      run.catch(() => undefined).finally(finish);
    };
    // At once on SQLite; a store that answers later and fails leaves it to the schedule.
    const checked = whenReady(deps.stores.webhooks.hasEnabledEndpoint(), start);
    if (checked instanceof Promise) checked.catch(finish);
  };
  return onEvents(kick);
}
