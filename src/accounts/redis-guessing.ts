import { fail } from '@/kernel/errors';
import { type RedisConnection, RedisUnavailable } from '@/redis/connection';
import { takeSlidingWindow } from '@/redis/sliding-window';
import { FAILURE_WINDOW_MS, type FailureLedger } from './guessing';
import type { AccountStore } from './store';

/** Seconds a sign-in refused for want of Redis suggests waiting. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Sign-in failures in the Redis the instances share, so the limits hold for
 * the cluster, not per instance. Without Redis it fails closed: a sign-in
 * that cannot be counted is refused with 503 and Retry-After rather than
 * let unlimited guesses through. A refusal is recorded in the security log
 * (the accounts store) after the check.
 */
export function redisFailureLedger(store: AccountStore, redis: RedisConnection): FailureLedger {
  const keyOf = (counter: string) => redis.key('guess', `{${counter}}`);
  return {
    async begin(counters, now, refusal) {
      // A provisional failure in every counter, taken back by `forgive` on success.
      const member = crypto.randomUUID();
      const keyed = counters.map(({ key, limit }) => ({ key: keyOf(key), limit }));
      let retryAfterMs: number;
      try {
        retryAfterMs = await takeSlidingWindow(redis, keyed, FAILURE_WINDOW_MS, now, member);
      } catch (error) {
        if (!(error instanceof RedisUnavailable)) throw error;
        throw fail('service.unavailable', { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
      }
      if (retryAfterMs > 0) {
        await store.recordSecurityEvent(refusal.audit, refusal.entry);
        return { retryAfterMs };
      }
      return { failures: counters.map((counter) => ({ key: counter.key, id: member })) };
    },
    async forgive(attempt, clearKeys) {
      try {
        for (const failure of attempt.failures) {
          await redis.send('ZREM', [keyOf(failure.key), failure.id]);
        }
        if (clearKeys.length > 0) await redis.send('DEL', clearKeys.map(keyOf));
      } catch (error) {
        // Redis went away after the check: the provisional failures stay
        // counted, which errs on the side of refusing, and the sign-in stands.
        if (!(error instanceof RedisUnavailable)) throw error;
      }
    },
  };
}
