import { type Change, ChangeFeed } from '@/db/change-feed';
import type { Db } from '@/db/client';

/**
 * A cached value with what it costs to hold and the tags naming what it was
 * read from: it stays valid until a write changes one of its tags.
 */
export interface Fill<T> {
  value: T;
  /** Characters (or about that many bytes) the value holds. */
  size: number;
  tags: readonly string[];
  /** False: answer with the value but do not hold it (a missing row). */
  keep?: boolean;
}

interface Entry {
  value: unknown;
  size: number;
  tags: readonly string[];
  /** The tick of the look that preceded the read it was filled from. */
  at: number;
  /** The tick at which its tags were last found unchanged: valid without a look while it is current. */
  checked: number;
  /** `#placed` when it was last put at the recent end of the LRU order. */
  placed: number;
}

export interface ReadCacheOptions {
  /** The SQLite database whose change feed says what a write changed; none: nothing is remembered. */
  db?: Db;
  /** `false` (READ_CACHE=off): `answer` computes every time; `memo` still remembers. */
  enabled?: boolean;
  /** Most values held. */
  maxEntries?: number;
  /** Most characters held, all values together. */
  maxChars?: number;
  /**
   * Once the cache is full, an answer that took at least this long to
   * compute is kept at once; a quicker one only when computed a second time
   * within the recent window (`#admits`).
   */
  admitAfterMs?: number;
}

/** Most tags remembered as changed; past it every value is dropped and the count starts over. */
const MAX_TAGS = 200_000;

/**
 * The service's one read cache: a bounded LRU of answers (property
 * representations, list pages and their totals, transaction pages, static
 * pages), each tagged with what it was read from. Before every use it reads
 * the change feed (`ChangeFeed`: every write to a cached table, by anyone)
 * and marks the tags each change touches; a value with a touched tag is a
 * miss. So a write drops only what it can change: a property write its
 * representation and the lists of its owner, city and type; a unit's
 * features the feature searches naming them; a transaction its customer's
 * pages; writes to other tables (rate-limit windows, sessions, job runs)
 * nothing. The tags of each answer are chosen where it is read (see the
 * callers); `docs/performance.md` lists them.
 */
export class ReadCache {
  readonly enabled: boolean;
  readonly #feed: ChangeFeed | undefined;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #admitAfterMs: number;
  readonly #entries = new Map<string, Entry>();
  readonly #changedAt = new Map<string, number>();
  #chars = 0;
  #tick = 1;
  /** Hashes of keys computed once while the cache was full (`#admits`). */
  readonly #seenOnce = new Set<number>();
  /** Counts insertions at the recent end of `#entries`: how far an entry is from it, at most. */
  #placed = 0;
  /** Answers served from the cache, and computed, since start (tests and diagnostics). */
  hits = 0;
  misses = 0;

  constructor({
    db,
    enabled = true,
    maxEntries = 50_000,
    maxChars = 64 * 1024 * 1024,
    admitAfterMs = 0.1,
  }: ReadCacheOptions) {
    this.enabled = enabled && db !== undefined;
    this.#feed = db && new ChangeFeed(db.$client);
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
    this.#admitAfterMs = admitAfterMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value of `key` or the one `compute` reads (and stores unless the cache is off). */
  answer<T>(key: string, compute: () => Fill<T>): T {
    return this.enabled ? this.memo(key, compute) : compute().value;
  }

  /** As `answer`, also with the cache off: for aggregates every read would otherwise recount. */
  memo<T>(key: string, compute: () => Fill<T>): T {
    if (!this.sync()) return compute().value;
    const known = this.#used(key);
    if (known) return known.value as T;
    this.misses++;
    const at = this.#tick;
    const started = performance.now();
    const fill = compute();
    const costly = performance.now() - started >= this.#admitAfterMs;
    if (costly || this.#admits(key, fill.size)) this.store(key, fill, at);
    return fill.value;
  }

  /** The value of `key` while valid (counted as a hit), or undefined (the caller fills it). */
  peek<T>(key: string): T | undefined {
    if (!this.sync()) return undefined;
    const known = this.#used(key);
    if (!known) this.misses++;
    return known?.value as T | undefined;
  }

  /**
   * A valid entry, moved to the most recently used end (the first entry is
   * evicted first) unless it was placed among the latest half of
   * `maxEntries` placements: an approximate LRU in which a hot entry is moved
   * once per that many placements rather than on every hit.
   */
  #used(key: string): Entry | undefined {
    const known = this.#valid(key);
    if (!known) return undefined;
    this.hits++;
    if (this.#placed - known.placed >= this.#maxEntries >> 1) {
      this.#entries.delete(key);
      this.#entries.set(key, known);
      known.placed = ++this.#placed;
    }
    return known;
  }

  /**
   * Whether a quickly computed answer for `key` is kept. While it fits
   * without pushing anything out, always; once the cache is full, only one
   * computed before within the recent window. Reads spread over far more keys than fit (a million properties
   * read at random) would otherwise replace an entry on every request, keep
   * almost none long enough to be read again, cost more than the reads
   * themselves and push out the answers that are read again. An answer that
   * is costly to compute (a list page) is kept at once (`admitAfterMs`).
   */
  #admits(key: string, size: number): boolean {
    const full = this.#entries.size >= this.#maxEntries || this.#chars + size > this.#maxChars;
    if (!full) return true;
    const hash = Bun.hash.cityHash32(key);
    if (this.#seenOnce.delete(hash)) return true;
    if (this.#seenOnce.size >= this.#maxEntries) this.#seenOnce.clear();
    this.#seenOnce.add(hash);
    return false;
  }

  /** Stores `fill` as read after the look at tick `at` (`tick()`, taken before the read). */
  store<T>(key: string, fill: Fill<T>, at = this.#tick): void {
    if (fill.keep === false || fill.size > this.#maxChars) return;
    this.#drop(key);
    while (
      this.#entries.size > 0 &&
      (this.#entries.size >= this.#maxEntries || this.#chars + fill.size > this.#maxChars)
    ) {
      this.#drop(this.#entries.keys().next().value!);
    }
    const { value, size, tags } = fill;
    this.#entries.set(key, { value, size, tags, at, checked: at, placed: ++this.#placed });
    this.#chars += fill.size;
  }

  /** Reads the change feed; false when the cache must not be used now (inside a transaction). */
  sync(): boolean {
    if (!this.#feed) return false;
    return this.#feed.poll(
      (change) => this.#apply(change),
      () => this.clear(),
    );
  }

  /** The current tick, for a caller that reads first and stores later (`store`). */
  tick(): number {
    return this.#tick;
  }

  /** Counts the valid values whose key starts with `prefix`. */
  count(prefix: string): number {
    let n = 0;
    for (const key of this.#entries.keys()) if (key.startsWith(prefix) && this.#valid(key)) n++;
    return n;
  }

  clear(): void {
    this.#entries.clear();
    this.#changedAt.clear();
    this.#chars = 0;
    this.#tick++;
  }

  #valid(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.checked === this.#tick) return entry;
    for (const tag of entry.tags) {
      if ((this.#changedAt.get(tag) ?? 0) > entry.at) {
        this.#drop(key);
        return undefined;
      }
    }
    entry.checked = this.#tick;
    return entry;
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#chars -= entry.size;
  }

  #touch(tag: string): void {
    this.#changedAt.set(tag, this.#tick);
  }

  #apply({ topic, key }: Change): void {
    this.#tick++;
    if (this.#changedAt.size > MAX_TAGS) {
      this.clear();
      return;
    }
    const fields = key.split('\u001f');
    if (topic === 'property') {
      this.#touch('P');
      for (let i = 0; i + 3 < fields.length; i += 4) {
        const [id, owner, city, type] = fields.slice(i, i + 4);
        this.#touch(`p:${id}`);
        this.#touch(`o:${owner}`);
        this.#touch(`c:${city}`);
        this.#touch(`ct:${city}|${type}`);
        this.#touch(`t:${type}`);
      }
    } else if (topic === 'unit') this.#touch('U');
    else if (topic === 'feature') {
      this.#touch('F');
      this.#touch(`f:${key}`);
    } else if (topic === 'transaction') {
      this.#touch('X');
      this.#touch(`x:${key}`);
    } else if (topic === 'page') {
      this.#touch('S');
      this.#touch(`s:${key}`);
    } else this.clear();
  }
}
