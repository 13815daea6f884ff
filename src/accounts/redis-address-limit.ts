import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';
import { type RedisConnection, RedisUnavailable } from '@/redis/connection';
import { shareOf } from '@/redis/instances';
import { takeSlidingWindow } from '@/redis/sliding-window';
import { type AddressBound, AddressLimit } from './address-limit';

export interface RedisAddressLimitOptions {
  /** Names the bound in its Redis keys (`signup`, `passkey-options`, `hash-ip`, `hash-account`). */
  name: string;
  limit: number;
  windowMs: number;
  clock: Clock;
  /** The live instances sharing the Redis (heartbeats), for the share while it is away. */
  instances: () => number;
}

/**
 * A per-address bound kept in the Redis the instances share: one sliding
 * window per address for the whole cluster, checked and recorded in one
 * script. While Redis cannot be reached, each instance bounds addresses in
 * its own memory at limit ÷ live instances (at least 1), as the customer
 * API's limiter does: neither open to everyone nor closed to everyone,
 * and counting in Redis again as soon as it answers.
 */
export class RedisAddressLimit implements AddressBound {
  readonly #redis: RedisConnection;
  readonly #options: RedisAddressLimitOptions;
  readonly #fallback: AddressLimit;

  constructor(redis: RedisConnection, options: RedisAddressLimitOptions) {
    this.#redis = redis;
    this.#options = options;
    this.#fallback = new AddressLimit(options.limit, options.windowMs, options.clock);
  }

  async take(address: string): Promise<void> {
    const { name, limit, windowMs, clock, instances } = this.#options;
    const now = clock();
    const counter = { key: this.#redis.key('addr', name, `{${address}}`), limit };
    let retryAfterMs: number;
    try {
      retryAfterMs = await takeSlidingWindow(
        this.#redis,
        [counter],
        windowMs,
        now,
        crypto.randomUUID(),
      );
    } catch (error) {
      if (!(error instanceof RedisUnavailable)) throw error;
      this.#fallback.take(address, shareOf(limit, instances()));
      return;
    }
    if (retryAfterMs > 0) {
      throw fail('auth.too_many_requests', { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) });
    }
  }
}
