import type { AppDeps } from '@/deps';
import { deliverWebhooks } from '@/webhooks/deliver';
import type { JobContext, JobDetails } from './scheduler';

/**
 * Queues the new events of every webhook endpoint and sends what is due
 * (docs/events-and-webhooks.md). At shutdown no new attempt starts; the
 * ones in flight finish and are recorded.
 */
export async function run(deps: AppDeps, ctx?: JobContext): Promise<JobDetails> {
  const { webhooks: store, clock, config } = deps;
  return {
    ...(await deliverWebhooks({
      ...{ store, clock, policy: config.webhooks, quotas: config.webhookQuotas },
      signal: ctx?.signal,
    })),
  };
}
