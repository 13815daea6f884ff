import { fail } from '@/kernel/errors';
import { type RedisConnection, RedisScript, RedisUnavailable } from '@/redis/connection';
import { FAILURE_WINDOW_MS, type FailureLedger } from './guessing';
import type { AccountStore } from './store';

/** Seconds a sign-in refused for want of Redis suggests waiting. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * KEYS: one sorted set of failure times per counter. ARGV: now, the window,
 * a member name unique to the attempt, then each counter's limit. Returns 0
 * once a provisional failure is recorded in every set, or the milliseconds
 * until the fullest counter has room (recording nothing).
 */
const BEGIN_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local retry = 0
for i = 1, #KEYS do
  local limit = tonumber(ARGV[3 + i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[i])
  if count >= limit then
    -- Admitted again once enough failures age out to leave room for one more.
    local freed = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    retry = math.max(retry, tonumber(freed[2]) + window - now)
  end
end
if retry > 0 then return retry end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now, member)
  redis.call('PEXPIRE', KEYS[i], window)
end
return 0
`;

const beginScript = new RedisScript(BEGIN_SCRIPT);

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
      const member = crypto.randomUUID();
      const keys = counters.map((counter) => keyOf(counter.key));
      const args = [String(now), String(FAILURE_WINDOW_MS), member];
      for (const counter of counters) args.push(String(counter.limit));
      let retryAfterMs: number;
      try {
        retryAfterMs = Number(await beginScript.run(redis, keys, args));
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
