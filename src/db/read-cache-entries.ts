import { LRUCache } from 'lru-cache';
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
  /** The key's hash, for its frequency when it is the next to go (`admits`). */
  hash: number;
  /** Quick to read again (one row by key): held only while such reads repeat (`heldCheap`). */
  cheap: boolean;
}

/**
 * The values the read cache holds, bounded by count and by size, in
 * least-recently-used order, with a frequency-based admission once full
 * (`admits`). Whether a value is still valid is the `ReadCache`'s business.
 *
 * The order is `lru-cache`'s (a linked list in typed arrays), not a `Map`'s
 * insertion order: in Bun a `Map` keeps the slots of deleted keys until it
 * grows, and finding its first live key walks past them, so a `Map` used as
 * an LRU of 33,000 answers cost 20–40 µs to find the one to push out, more
 * than the read it saved (docs/performance.md, "The next to go").
 */
export class CacheEntries {
  readonly #lru: LRUCache<string, CacheEntry>;
  /** How often each key was asked for lately, held or not. */
  readonly #frequency: AccessFrequency;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  /** Whether cheap answers are held: false while few of their reads repeat (`cheapAsked`). */
  #holdsCheap = true;
  /** Requests for cheap answers in the current window, and those for keys asked for often lately. */
  #cheapAsked = 0;
  #cheapHot = 0;
  /** Of those, the ones answered from what was held. */
  #cheapHits = 0;
  /** Cheap reads while none are held, for the sample `looksUpCheap` takes. */
  #unsampled = 0;
  readonly #window: number;

  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
    this.#lru = new LRUCache({ max: maxEntries, maxSize: maxChars });
    this.#frequency = new AccessFrequency(maxEntries);
    this.#window = Math.max(64, maxEntries * CHEAP_WINDOW_PER_ENTRY);
  }

  /** Whether a cheap answer is held now (`cheapAsked`). */
  get heldCheap(): boolean {
    return this.#holdsCheap;
  }

  /**
   * Whether a cheap read goes through the cache (`ReadCache.answerCheap`):
   * every one while they are held, else one in `CHEAP_SAMPLE`.
   */
  looksUpCheap(): boolean {
    return this.#holdsCheap || ++this.#unsampled % CHEAP_SAMPLE === 0;
  }

  /**
   * Counts a request (hit or miss, `asked` first) for a cheap answer, one
   * quick to read again. Every window of requests it decides whether such
   * answers are held: only while a fair share of them are for keys asked for
   * at least `HOT_COUNT` times lately. Held answers cost every request some
   * time whatever is read (each one is objects the collector walks), so
   * reads spread evenly over far more keys than fit, which hit seldom, are
   * quicker with none held: uniform reads over 1,000,000 properties cost
   * 55 µs of CPU with at most 2,000 held, as with the cache off, and 58–65
   * µs with 20,000 (docs/performance.md, "Held only while they repeat"). The share is read
   * off the admission's frequencies, not the hits, so it does not depend on
   * what is held: it is about the share a cache of a few thousand would hit.
   * But while they are held and most of them hit (`hit`: answered from what
   * was held), they stay whatever that share: reads spread over no more
   * keys than fit (uniform over 20,000 properties) hit three times in four
   * within the first window, before any key has been asked for `HOT_COUNT`
   * times, and dropping them then made every read a miss for the next
   * 80,000 to 240,000 reads.
   */
  cheapAsked(hash: number, hit: boolean): void {
    if (this.#frequency.estimate(hash) >= HOT_COUNT) this.#cheapHot++;
    if (hit) this.#cheapHits++;
    // While none are held only a sample is asked for here: a window as long in reads.
    const window = this.#holdsCheap ? this.#window : this.#window / CHEAP_SAMPLE;
    if (++this.#cheapAsked < window) return;
    const share = this.#cheapHot / this.#cheapAsked;
    const hits = this.#cheapHits / this.#cheapAsked;
    this.#cheapAsked = 0;
    this.#cheapHot = 0;
    this.#cheapHits = 0;
    if (this.#holdsCheap && share < STOP_HOLDING_BELOW && hits < KEEP_HOLDING_WHILE_HITS) {
      this.#holdsCheap = false;
      this.#dropCheap();
    } else if (!this.#holdsCheap && share >= HOLD_FROM) this.#holdsCheap = true;
  }

  get size(): number {
    return this.#lru.size;
  }

  keys(): Iterable<string> {
    return this.#lru.keys();
  }

  /** The entry of `key`, without making it the most recently used (`used` does). */
  get(key: string): CacheEntry | undefined {
    return this.#lru.peek(key);
  }

  /** Counts a request for `key`, held or not; answers the key's hash. */
  asked(key: string): number {
    const hash = Bun.hash.cityHash32(key);
    this.#frequency.record(hash);
    return hash;
  }

  /** Makes a hit the most recently used. */
  used(key: string): void {
    this.#lru.get(key);
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
    if (this.#lru.size < this.#maxEntries && this.#lru.calculatedSize + size <= this.#maxChars) {
      return true;
    }
    const victim = this.#lru.rvalues().next().value;
    return !victim || this.#frequency.estimate(hash) > this.#frequency.estimate(victim.hash);
  }

  /**
   * Drops every cheap entry by holding the others anew (in their order):
   * `lru-cache` finds keys in a `Map`, and a `Map` in Bun keeps the slots of
   * deleted keys until it grows, so
   * thousands deleted one by one, with no new keys coming, left every later
   * lookup of a key not held probing past them (uniform reads at 1,000,000
   * cost 74–84 µs of CPU instead of 65).
   */
  #dropCheap(): void {
    const kept: [string, CacheEntry][] = [];
    for (const key of this.#lru.rkeys()) {
      const entry = this.#lru.peek(key)!;
      if (!entry.cheap) kept.push([key, entry]);
    }
    this.#lru.clear();
    for (const [key, entry] of kept) this.#lru.set(key, entry, { size: sizeOf(entry.size) });
  }

  /** Holds `entry` as the most recently used, pushing out the least recently used until it fits. */
  put(key: string, { value, size, tags, at, hash, cheap }: Omit<CacheEntry, 'checked'>): void {
    if (size > this.#maxChars || (cheap && !this.#holdsCheap)) return;
    this.#lru.set(key, { value, size, tags, at, checked: at, hash, cheap }, { size: sizeOf(size) });
  }

  drop(key: string): void {
    this.#lru.delete(key);
  }

  clear(): void {
    this.#lru.clear();
  }
}

/** What `lru-cache` counts an entry as: a positive integer. */
const sizeOf = (size: number) => Math.max(1, Math.ceil(size));

/** A key asked for at least this often lately (the admission's estimate) is a hot one. */
const HOT_COUNT = 8;
/**
 * Cheap answers stop being held when fewer than this share of their
 * requests are for hot keys, and are held again from `HOLD_FROM`. Simulated
 * with the sketch of 20,000 entries, the share is 94 % for reads uniform
 * over 30,000 keys, 39 % over 100,000, 2 % over 200,000 (where 20,000 held
 * hit 10 %), none over 1,000,000, and 64–73 % for Zipf (s = 1) reads over
 * 200,000 or 1,000,000 keys.
 */
const STOP_HOLDING_BELOW = 0.1;
const HOLD_FROM = 0.15;
/**
 * Held cheap answers that hit at least this share of their reads are kept
 * whatever `STOP_HOLDING_BELOW` says: a hit saves the row's read and its
 * serialisation, a few times what holding them costs a request.
 */
const KEEP_HOLDING_WHILE_HITS = 0.5;
/** A decision every this many cheap requests per entry held at most (80,000 for 20,000). */
const CHEAP_WINDOW_PER_ENTRY = 4;
/**
 * While cheap answers are not held, one cheap read in this many is looked
 * up and counted; the window is then as many times fewer of them, so that
 * holding resumes as soon after reads start to repeat as it stopped.
 */
const CHEAP_SAMPLE = 16;
