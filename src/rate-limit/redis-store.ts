import { type RedisConnection, RedisScript, RedisUnavailable } from '@/redis/connection';
import { shareOf } from '@/redis/instances';
import { calendarSpan, MINUTE_MS } from './calendar';
import { MemoryStore } from './memory-store';
import type { HitResult, RateLimitStore, WindowRule, WindowUsage } from './store';

/**
 * Check every window, then record in all of them only when all have room,
 * in one script: Redis runs a script to completion before any other
 * command, so instances counting the same caller at once never overshoot.
 *
 * KEYS: one per rule — the sliding window's sorted set (request times as
 * scores) or a calendar window's counter (its start is part of the key, so
 * a new window starts from nothing). ARGV: now, 1 to record (0 to look
 * only), a member name unique to this request, then per rule its limit and
 * the calendar window's end (0 for the sliding window).
 * Returns admitted (1/0), then per rule: used, and when it frees room.
 */
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local record = ARGV[2] == '1'
local member = ARGV[3]
local minute = ${MINUTE_MS}
local used, limits, ends = {}, {}, {}
local admitted = true
for i = 1, #KEYS do
  limits[i] = tonumber(ARGV[2 + i * 2])
  ends[i] = tonumber(ARGV[3 + i * 2])
  if ends[i] == 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - minute)
    local count = redis.call('ZCARD', KEYS[i])
    if count > limits[i] then
      -- A lowered limit keeps the newest requests, as the in-process log does.
      redis.call('ZREMRANGEBYRANK', KEYS[i], 0, count - limits[i] - 1)
      count = limits[i]
    end
    used[i] = count
  else
    used[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  end
  if used[i] >= limits[i] then admitted = false end
end
if record and admitted then
  for i = 1, #KEYS do
    if ends[i] == 0 then
      redis.call('ZADD', KEYS[i], now, member)
      redis.call('PEXPIRE', KEYS[i], minute)
    else
      redis.call('INCR', KEYS[i])
      -- Relative to the service's clock, so the window ends when the service says it does.
      redis.call('PEXPIRE', KEYS[i], math.max(1, ends[i] - now))
    end
    used[i] = used[i] + 1
  end
end
local result = { admitted and 1 or 0 }
for i = 1, #KEYS do
  local reset = ends[i]
  if reset == 0 then
    local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    reset = oldest[2] and (tonumber(oldest[2]) + minute) or (now + minute)
  end
  result[#result + 1] = used[i]
  result[#result + 1] = reset
end
return result
`;

const hitScript = new RedisScript(HIT_SCRIPT);

export interface RedisRateLimitStoreOptions {
  /** Live instances as last seen (heartbeats); 1 when not given. */
  instances?: () => number;
}

/**
 * Usage in a Redis shared by every instance: the sliding 60-second window
 * as a sorted set of request times, each calendar window as a counter that
 * expires when the window ends. Nothing is held in the process, so a
 * restart of every instance loses nothing that Redis keeps.
 *
 * While Redis is unreachable each instance counts on its own, in memory,
 * at limit ÷ live instances per window: the cluster as a whole admits
 * about the limit, neither failing open nor refusing everyone. Once Redis
 * answers again the shared windows count again; what was counted in
 * memory meanwhile is dropped.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisConnection;
  readonly #instances: () => number;
  readonly #fallback = new MemoryStore();
  /** Makes each recorded request a distinct member of the sliding window's set. */
  readonly #instance = crypto.randomUUID();
  #sequence = 0;

  constructor(redis: RedisConnection, { instances = () => 1 }: RedisRateLimitStoreOptions = {}) {
    this.#redis = redis;
    this.#instances = instances;
  }

  async hit(key: string, rules: readonly WindowRule[], now: number): Promise<HitResult> {
    try {
      return await this.#run(key, rules, now, true);
    } catch (error) {
      if (!(error instanceof RedisUnavailable)) throw error;
      return this.#fallback.hit(key, this.#shares(rules), now);
    }
  }

  async peek(key: string, rules: readonly WindowRule[], now: number): Promise<WindowUsage[]> {
    try {
      return (await this.#run(key, rules, now, false)).windows;
    } catch (error) {
      if (!(error instanceof RedisUnavailable)) throw error;
      return this.#fallback.peek(key, this.#shares(rules), now);
    }
  }

  #shares(rules: readonly WindowRule[]): WindowRule[] {
    const instances = this.#instances();
    return rules.map((rule) => ({ kind: rule.kind, limit: shareOf(rule.limit, instances) }));
  }

  /** Calendar counters in Redis expire by themselves at their window's end. */
  resetExpired(now: number): number {
    return this.#fallback.resetExpired(now);
  }

  /** Every hit is written when it is counted. */
  flush(): void {}

  async #run(
    key: string,
    rules: readonly WindowRule[],
    now: number,
    record: boolean,
  ): Promise<HitResult> {
    const keys: string[] = [];
    const args = [String(now), record ? '1' : '0', `${this.#instance}:${this.#sequence++}`];
    // The hash tag keeps one caller's keys in one slot of a Redis cluster.
    const base = `rl:{${key}}`;
    for (const rule of rules) {
      if (rule.kind === 'minute') {
        keys.push(this.#redis.key(base, 'minute'));
        args.push(String(rule.limit), '0');
      } else {
        const span = calendarSpan(rule.kind, now);
        keys.push(this.#redis.key(base, rule.kind, String(span.start)));
        args.push(String(rule.limit), String(span.end));
      }
    }
    const reply = (await hitScript.run(this.#redis, keys, args)) as number[];
    return {
      admitted: reply[0] === 1,
      windows: rules.map((rule, i) => ({
        kind: rule.kind,
        limit: rule.limit,
        used: reply[1 + i * 2]!,
        resetAt: reply[2 + i * 2]!,
      })),
    };
  }
}
