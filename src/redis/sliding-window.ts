import { type RedisConnection, RedisScript } from './connection';

/**
 * KEYS: one sorted set of admitted times per counter. ARGV: now, the
 * window, a member name unique to the attempt, then each counter's limit.
 * Returns 0 once the attempt is recorded in every set, or the milliseconds
 * until the fullest counter has room (recording nothing). Redis runs a
 * script to completion before any other command, so instances taking from
 * the same counters at once never overshoot.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local retry = 0
for i = 1, #KEYS do
  local limit = tonumber(ARGV[3 + i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[i])
  if count >= limit then
    -- Admitted again once enough entries age out to leave room for one more.
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

const takeScript = new RedisScript(TAKE_SCRIPT);

export interface SlidingCounter {
  /** The full Redis key of its sorted set. */
  key: string;
  limit: number;
}

/**
 * Takes one slot, recorded as `member`, in every counter's sliding window
 * of `windowMs` when all have room: 0, or the milliseconds until the
 * fullest has room (nothing recorded). Throws RedisUnavailable.
 */
export async function takeSlidingWindow(
  redis: RedisConnection,
  counters: readonly SlidingCounter[],
  windowMs: number,
  now: number,
  member: string,
): Promise<number> {
  const args = [String(now), String(windowMs), member];
  for (const counter of counters) args.push(String(counter.limit));
  const keys = counters.map((counter) => counter.key);
  return Number(await takeScript.run(redis, keys, args));
}
