import { type RedisConnection, RedisScript, RedisUnavailable } from '@/redis/connection';
import { shareOf } from '@/redis/instances';
import { calendarSpan, MINUTE_MS } from './calendar';
import { MemoryStore } from './memory-store';
import type { HitResult, RateLimitStore, WindowRule, WindowUsage } from './store';

/**
 * Check every window, then record in all of them only when all have room
 * for the whole cost, in one script: Redis runs a script to completion
 * before any other command, so instances counting the same caller at once
 * never overshoot.
 *
 * KEYS: one per rule — the sliding window's sorted set (request times as
 * scores) or a calendar window's counter (its start is part of the key, so
 * a new window starts from nothing). ARGV: now, 1 to record (0 to look
 * only), a member name unique to this request, the cost (requests this one
 * counts as), then per rule its limit and the calendar window's end (0 for
 * the sliding window).
 * Returns admitted (1/0), then per rule: used, and when it frees room; last,
 * when refused, when every window has room for the cost (else 0).
 */
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local record = ARGV[2] == '1'
local member = ARGV[3]
local cost = tonumber(ARGV[4])
local minute = ${MINUTE_MS}
local used, limits, ends = {}, {}, {}
local admitted = true
local fits = now
for i = 1, #KEYS do
  limits[i] = tonumber(ARGV[3 + i * 2])
  ends[i] = tonumber(ARGV[4 + i * 2])
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
  if used[i] + cost > limits[i] then
    admitted = false
    local at = ends[i]
    if at == 0 then
      -- The request that must age out last for the cost to fit.
      local leaving = math.min(used[i] + cost - limits[i], used[i])
      local entry = redis.call('ZRANGE', KEYS[i], leaving - 1, leaving - 1, 'WITHSCORES')
      at = entry[2] and (tonumber(entry[2]) + minute) or now
    end
    if at > fits then fits = at end
  end
end
if record and admitted then
  for i = 1, #KEYS do
    if ends[i] == 0 then
      for n = 1, cost do redis.call('ZADD', KEYS[i], now, member .. ':' .. n) end
      redis.call('PEXPIRE', KEYS[i], minute)
    else
      redis.call('INCRBY', KEYS[i], cost)
      -- Relative to the service's clock, so the window ends when the service says it does.
      redis.call('PEXPIRE', KEYS[i], math.max(1, ends[i] - now))
    end
    used[i] = used[i] + cost
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
result[#result + 1] = admitted and 0 or fits
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

  async hit(key: string, rules: readonly WindowRule[], now: number, cost = 1): Promise<HitResult> {
    try {
      return await this.#run(key, rules, now, cost);
    } catch (error) {
      if (!(error instanceof RedisUnavailable)) throw error;
      const shares = this.#shares(rules);
      const smallest = Math.min(...shares.map((rule) => rule.limit));
      return this.#fallback.hit(key, shares, now, Math.min(cost, smallest));
    }
  }

  async peek(key: string, rules: readonly WindowRule[], now: number): Promise<WindowUsage[]> {
    try {
      return (await this.#run(key, rules, now, 0)).windows;
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

  /** `cost` 0: look only. */
  async #run(
    key: string,
    rules: readonly WindowRule[],
    now: number,
    cost: number,
  ): Promise<HitResult> {
    const keys: string[] = [];
    const member = `${this.#instance}:${this.#sequence++}`;
    const args = [String(now), cost > 0 ? '1' : '0', member, String(Math.max(cost, 1))];
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
    const fitsAt = reply[1 + rules.length * 2]!;
    return {
      admitted: reply[0] === 1,
      windows: rules.map((rule, i) => ({
        kind: rule.kind,
        limit: rule.limit,
        used: reply[1 + i * 2]!,
        resetAt: reply[2 + i * 2]!,
      })),
      ...(fitsAt > 0 ? { fitsAt } : {}),
    };
  }
}
