import { cursorOf } from '@/events/cursor';
import type { Clock } from '@/kernel/clock';
import { signingSecrets } from './endpoints';
import { webhookHeaders } from './signing';
import type { AttemptOutcome, DueDelivery, WebhookQuotas, WebhookStore } from './store';
import { type Resolve, refusalOf, type UrlPolicy } from './url-policy';

/** An attempt that has no answer after this long failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Attempts at once, and in one run at most (the rest wait for the next run). */
const PARALLEL = 16;
const PER_RUN = 1000;

export interface DeliveryContext {
  store: WebhookStore;
  clock: Clock;
  /** The fan-out's bounds: an endpoint's pending deliveries, its finished ones kept. */
  quotas: WebhookQuotas;
  policy: UrlPolicy;
  resolve?: Resolve;
  timeoutMs?: number;
  /** Shutdown: no new attempt starts; the ones in flight finish and are recorded. */
  signal?: AbortSignal;
}

export interface DeliveryRun {
  queued: number;
  attempted: number;
  succeeded: number;
  failed: number;
}

function errorOf(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  return `request failed: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * One POST: the address checked again first (the name may resolve elsewhere
 * now), no redirect followed (a 3xx is a failure), the answer's body not read.
 */
async function attempt(
  ctx: DeliveryContext,
  { delivery, endpoint, body }: DueDelivery,
): Promise<AttemptOutcome> {
  const timeoutMs = ctx.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refusal = await refusalOf(endpoint.url, ctx.policy, ctx.resolve);
  if (refusal)
    return { ok: false, responseStatus: null, durationMs: 0, error: `refused: ${refusal}` };
  const now = ctx.clock();
  const headers = webhookHeaders(
    signingSecrets(endpoint, now),
    cursorOf(delivery.eventId),
    now,
    body,
  );
  try {
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      responseStatus: response.status,
      durationMs: elapsed(),
      error: ok ? null : `answered ${response.status}`,
    };
  } catch (error) {
    return {
      ok: false,
      responseStatus: null,
      durationMs: elapsed(),
      error: errorOf(error, timeoutMs),
    };
  }
}

/**
 * Queues the new events of every endpoint, then attempts what is due, in
 * rounds (a success lets the next event of its resource go in the next
 * round), until nothing is due or the run's share is used. Each outcome is
 * committed as soon as it is known: after a crash only the attempts in
 * flight are repeated.
 */
export async function deliverWebhooks(ctx: DeliveryContext): Promise<DeliveryRun> {
  const run: DeliveryRun = {
    queued: await ctx.store.fanOut(ctx.clock(), ctx.quotas),
    attempted: 0,
    succeeded: 0,
    failed: 0,
  };
  while (run.attempted < PER_RUN && !ctx.signal?.aborted) {
    const due = await ctx.store.dueDeliveries(ctx.clock(), PARALLEL);
    if (due.length === 0) break;
    await Promise.all(
      due.map(async (item) => {
        const outcome = await attempt(ctx, item);
        await ctx.store.recordAttempt(item.delivery.id, outcome, ctx.clock());
        run.attempted++;
        if (outcome.ok) run.succeeded++;
        else run.failed++;
      }),
    );
  }
  return run;
}
