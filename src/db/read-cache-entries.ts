import { AccessFrequency } from '@/db/read-cache-admission';

/** A held value with what it costs to hold, what it was read from and when. */
export interface CacheEntry {
  value: unknown;
  size: number;
  tags: readonly string[];
  /** The tick of the look that preceded the read it was filled from. */
  at: number;
  /** The tick at which its tags were last found unchanged: valid without a look while it is current. */
  checked: number;
  /** `#placed` when it was last put at the recent end of the LRU order. */
  placed: number;
  /** The key's hash, for its frequency when it is the next to go (`admits`). */
  hash: number;
}

/**
 * The values the read cache holds, bounded by count and by size, in an
 * approximate least-recently-used order (the first is the next to go), with
 * a frequency-based admission once full (`admits`). Whether a value is still
 * valid is the `ReadCache`'s business.
 */
export class CacheEntries {
  readonly #map = new Map<string, CacheEntry>();
  /** How often each key was asked for lately, held or not. */
  readonly #frequency: AccessFrequency;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;
  /** Counts insertions at the recent end of `#map`: how far an entry is from it, at most. */
  #placed = 0;

  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
    this.#frequency = new AccessFrequency(maxEntries);
  }

  get size(): number {
    return this.#map.size;
  }

  keys(): IterableIterator<string> {
    return this.#map.keys();
  }

  get(key: string): CacheEntry | undefined {
    return this.#map.get(key);
  }

  /** Counts a request for `key`, held or not; answers the key's hash. */
  asked(key: string): number {
    const hash = Bun.hash.cityHash32(key);
    this.#frequency.record(hash);
    return hash;
  }

  /**
   * Moves a hit to the recent end unless it was placed among the latest half
   * of `maxEntries` placements: an approximate LRU in which a hot entry is
   * moved once per that many placements rather than on every hit.
   */
  used(key: string, entry: CacheEntry): void {
    if (this.#placed - entry.placed < this.#maxEntries >> 1) return;
    this.#map.delete(key);
    this.#map.set(key, entry);
    entry.placed = ++this.#placed;
  }

  /**
   * Whether a value of `size` whose key hashes to `hash` is let in. While it
   * fits without pushing anything out, always; once full, only when its key
   * was asked for more often lately than the key of the next to go (TinyLFU).
   * Reads spread over far more keys than fit (a million properties read at
   * random) would otherwise replace an entry on most requests, keep almost
   * none long enough to be read again, cost more than the reads themselves
   * and push out the answers that are read again.
   */
  admits(hash: number, size: number): boolean {
    if (this.#map.size < this.#maxEntries && this.#chars + size <= this.#maxChars) return true;
    const victim = this.#map.values().next().value;
    return !victim || this.#frequency.estimate(hash) > this.#frequency.estimate(victim.hash);
  }

  /** Holds `entry` at the recent end, pushing out the least recently used until it fits. */
  put(key: string, { value, size, tags, at, hash }: Omit<CacheEntry, 'checked' | 'placed'>): void {
    if (size > this.#maxChars) return;
    this.drop(key);
    while (
      this.#map.size > 0 &&
      (this.#map.size >= this.#maxEntries || this.#chars + size > this.#maxChars)
    ) {
      this.drop(this.#map.keys().next().value!);
    }
    this.#map.set(key, { value, size, tags, at, checked: at, placed: ++this.#placed, hash });
    this.#chars += size;
  }

  drop(key: string): void {
    const entry = this.#map.get(key);
    if (!entry) return;
    this.#map.delete(key);
    this.#chars -= entry.size;
  }

  clear(): void {
    this.#map.clear();
    this.#chars = 0;
  }
}
