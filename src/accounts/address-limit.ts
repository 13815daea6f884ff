import { LRUCache } from 'lru-cache';
import type { Clock } from '@/kernel/clock';
import { fail } from '@/kernel/errors';

/** Client addresses remembered at most; past it the longest-unseen one is forgotten. */
const MAX_ADDRESSES = 50_000;

/**
 * A bound on requests per client address, as the routes count it (an IPv6
 * client by its network, RATE_LIMIT_IPV6_PREFIX): `take` admits one, or throws
 * 429 (`auth.too_many_requests`) with the seconds until a slot frees. A
 * promise only where the count is kept outside the process (Redis).
 */
export interface AddressBound {
  take(address: string): void | Promise<void>;
}

/**
 * An exact sliding window per client address, in memory: at most `limit`
 * requests in any `windowMs`. Each address keeps only the times of its
 * admitted requests still in the window (at most `limit`), and at most
 * 50,000 addresses are kept, so memory is bounded whatever the traffic.
 * Checked before any work (hashing, storage), it costs a map lookup.
 */
export class AddressLimit implements AddressBound {
  /**
   * Least recently seen first. An `lru-cache` rather than a `Map` in
   * insertion order: in Bun a `Map` that loses its first key on every new
   * one walks past the slots of every key deleted before to find it, tens of
   * µs a request once full (docs/performance.md, "The next to go").
   */
  readonly #times = new LRUCache<string, number[]>({ max: MAX_ADDRESSES });

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /**
   * Admits one request from `address` or throws 429 with the seconds until
   * a slot frees; `limit` replaces the bound for this call (the Redis
   * bound's share while Redis is away).
   */
  take(address: string, limit = this.limit): void {
    const now = this.clock();
    const since = now - this.windowMs;
    const times = (this.#times.peek(address) ?? []).filter((at) => at > since);
    if (times.length >= limit) {
      const freedAt = times[times.length - limit]! + this.windowMs;
      this.#remember(address, times);
      throw fail('auth.too_many_requests', {
        retryAfterSeconds: Math.ceil((freedAt - now) / 1000),
      });
    }
    times.push(now);
    this.#remember(address, times);
  }

  /** Addresses currently remembered (for tests and figures). */
  get size(): number {
    return this.#times.size;
  }

  #remember(address: string, times: number[]) {
    // Setting makes the address the most recently seen; past the bound the least recently seen goes.
    this.#times.set(address, times);
  }
}
