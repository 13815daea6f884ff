import type { Config } from '@/config';
import { onEvents } from '@/events/signal';
import type { Clock } from '@/kernel/clock';
import type { Logger } from '@/logger';
import { deliverWebhooks } from '@/webhooks/deliver';
import type { WebhookStore } from '@/webhooks/store';
import type { JobContext, JobDetails } from './job';

/**
 * Queues the new events of every webhook endpoint and sends what is due
 * (docs/events-and-webhooks.md). A run lasts while there is work: it hears
 * this process's commits itself (the ticks and kicks it makes skip are not
 * missed). At shutdown no new attempt starts; the ones in flight finish
 * and are recorded.
 */
export async function run(
  deps: { stores: { webhooks: WebhookStore }; clock: Clock; config: Config; logger: Logger },
  ctx?: JobContext,
): Promise<JobDetails> {
  const {
    stores: { webhooks: store },
    clock,
    config,
    logger,
  } = deps;
  return {
    ...(await deliverWebhooks({
      store,
      clock,
      logger,
      policy: config.webhooks,
      quotas: config.webhookQuotas,
      concurrency: config.webhooks.concurrency,
      signal: ctx?.signal,
      onEvents,
    })),
  };
}
