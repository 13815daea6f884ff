import type { Clock } from '@/kernel/clock';
import { ATTEMPT_TIMEOUT_MS, type AttemptOptions, attempt, messageOf } from './attempt';
import { FairQueue, ownerShareOf, reserveOf, slowLaneShareOf } from './fair-queue';
import type { DueDelivery, DueEndpoint, WebhookQuotas, WebhookStore } from './store';

/** Attempts in flight at once in one process, by default (WEBHOOK_DELIVERY_CONCURRENCY). */
export const DEFAULT_CONCURRENCY = 32;
/**
 * How long an endpoint stays claimed by an attempt: its timeout and then
 * some. A claimer that dies leaves it to others after this (the delivery
 * is then sent again: at least once, as after a crash on SQLite).
 */
export const claimMsOf = (timeoutMs: number): number => 6 * timeoutMs;
/** While attempts are in flight, the run queues new events and looks for due work this often. */
const LOOK_AGAIN_MS = 1000;
/** Endpoints read per lane and look for due work; the rest come in a later look. */
const CANDIDATES = 1000;

export interface DeliveryContext extends AttemptOptions {
  store: WebhookStore;
  clock: Clock;
  /** What an endpoint may have queued and kept (WEBHOOK_*_PER_ENDPOINT). */
  quotas: WebhookQuotas;
  /**
   * Attempts in flight at once; an owner gets a quarter of them
   * (`ownerShareOf`), and so does the slow lane (`slowLaneShareOf`).
   */
  concurrency?: number;
  /** Shutdown: no new attempt starts; the ones in flight finish and are recorded. */
  signal?: AbortSignal;
  /** Subscribes to commits that appended events (answers the unsubscribe): the run queues them at once. */
  onEvents?: (listener: () => void) => () => void;
}

export interface DeliveryRun {
  queued: number;
  attempted: number;
  succeeded: number;
  failed: number;
}

/** `wait` ends at the next `poke()` (one since the last wait counts) or after its time. */
function waker() {
  let poked = false;
  let wake: (() => void) | null = null;
  return {
    poke() {
      poked = true;
      wake?.();
    },
    wait(ms: number): Promise<void> {
      if (poked) {
        poked = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wake = null;
          poked = false;
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
      });
    },
  };
}

/**
 * Queues the new events of every endpoint and attempts what is due, as a
 * pool: up to `concurrency` attempts in flight, one per endpoint, and when
 * one ends the next starts at once (a slow receiver holds its own slot,
 * never the others'). Which endpoint goes next is the `FairQueue`'s rule.
 * While attempts are in flight the run also queues events as they commit
 * (and every second), so a long run never holds back new deliveries; it
 * ends when nothing is due or in flight. Each outcome is committed as soon
 * as it is known: after a crash only the attempts in flight are repeated
 * (once their endpoint's claim lapses).
 */
export async function deliverWebhooks(ctx: DeliveryContext): Promise<DeliveryRun> {
  const run: DeliveryRun = { queued: 0, attempted: 0, succeeded: 0, failed: 0 };
  const slots = Math.max(1, ctx.concurrency ?? DEFAULT_CONCURRENCY);
  const claimMs = claimMsOf(ctx.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  const queue = new FairQueue(
    ownerShareOf(slots),
    slowLaneShareOf(slots),
    slots - reserveOf(slots),
  );
  /** The attempts in flight, by endpoint. */
  const inFlight = new Map<string, Promise<void>>();
  const wakeUp = waker();
  let look = true;
  const lookAgain = () => {
    look = true;
    wakeUp.poke();
  };
  const stopped = () => ctx.signal?.aborted === true;
  ctx.signal?.addEventListener('abort', wakeUp.poke, { once: true });
  const unsubscribe = ctx.onEvents?.(lookAgain);

  const start = (endpoint: DueEndpoint, due: DueDelivery, until: number) => {
    queue.started(endpoint);
    let slow = endpoint.slow;
    const task = (async () => {
      // The attempt's start is its time: a refusal and a request look alike in the log.
      const now = ctx.clock();
      try {
        const outcome = await attempt(ctx, due, now);
        slow = await ctx.store.recordAttempt(due.delivery.id, outcome, now);
        run.attempted++;
        if (outcome.ok) run.succeeded++;
        else run.failed++;
        await ctx.store.releaseEndpoint(endpoint.endpointId, until);
      } catch (error) {
        // Not recorded: the claim lapses and the delivery is attempted again.
        ctx.logger?.error('webhook attempt not recorded', {
          delivery: due.delivery.id,
          error: messageOf(error),
        });
      } finally {
        queue.finished({ ...endpoint, slow });
        inFlight.delete(endpoint.endpointId);
        wakeUp.poke();
      }
    })();
    inFlight.set(endpoint.endpointId, task);
  };

  try {
    let lastLook = Number.NEGATIVE_INFINITY;
    while (!stopped()) {
      let looked = false;
      if (look || performance.now() - lastLook >= LOOK_AGAIN_MS) {
        look = false;
        looked = true;
        lastLook = performance.now();
        run.queued += await ctx.store.fanOut(ctx.clock(), ctx.quotas);
        // Each lane read on its own: endpoints waiting in the slow lane never
        // keep the others out of the candidates.
        queue.offer(await ctx.store.dueEndpoints(ctx.clock(), CANDIDATES, false));
        queue.offer(await ctx.store.dueEndpoints(ctx.clock(), CANDIDATES, true));
      }
      while (inFlight.size < slots && !stopped()) {
        const endpoint = queue.next();
        if (!endpoint) break;
        const now = ctx.clock();
        const until = now + claimMs;
        const due = await ctx.store.claimDelivery(endpoint.endpointId, now, until);
        if (!due) continue;
        if (stopped()) {
          await ctx.store.releaseEndpoint(endpoint.endpointId, until);
          break;
        }
        start(endpoint, due, until);
      }
      if (inFlight.size === 0 && queue.size === 0) {
        // Nothing left: done once a fresh look found nothing, and no event came since.
        if (looked && !look) break;
        look = true;
        continue;
      }
      await wakeUp.wait(Math.max(0, lastLook + LOOK_AGAIN_MS - performance.now()));
    }
  } finally {
    unsubscribe?.();
    ctx.signal?.removeEventListener('abort', wakeUp.poke);
    await Promise.all(inFlight.values());
  }
  return run;
}
