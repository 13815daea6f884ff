import type { SQL } from 'bun';
import { type Change, ChangeFeed } from '@/db/change-feed';
import type { Db } from '@/db/client';
import { PostgresChangeFeed } from '@/db/pg/change-feed';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';

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
  /**
   * True: quick to read again whatever the wait for it (one row by key), so
   * once the cache is full it is kept only when read twice (`#admits`).
   */
  cheap?: boolean;
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
  /** The SQLite database whose change feed says what a write changed. */
  db?: Db;
  /** Or the PostgreSQL pool whose change feed does; neither: nothing is remembered. */
  postgres?: SQL;
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
  readonly #feed: ChangeFeed | PostgresChangeFeed | undefined;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #admitAfterMs: number;
  readonly #entries = new Map<string, Entry>();
  readonly #changedAt = new Map<string, number>();
  #chars = 0;
  #tick = 1;
  /** The tick of the last `clear`: a value read before it is never stored. */
  #clearedAt = 0;
  /** Hashes of keys computed once while the cache was full (`#admits`). */
  readonly #seenOnce = new Set<number>();
  /** Counts insertions at the recent end of `#entries`: how far an entry is from it, at most. */
  #placed = 0;
  /** Answers served from the cache, and computed, since start (tests and diagnostics). */
  hits = 0;
  misses = 0;

  constructor({
    db,
    postgres,
    enabled = true,
    maxEntries = 50_000,
    maxChars = 64 * 1024 * 1024,
    admitAfterMs = 0.1,
  }: ReadCacheOptions) {
    this.#feed = db ? new ChangeFeed(db.$client) : postgres && new PostgresChangeFeed(postgres);
    this.enabled = enabled && this.#feed !== undefined;
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
    this.#admitAfterMs = admitAfterMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The cached value of `key` or the one `compute` reads (and stores unless
   * the cache is off): at once on SQLite with a store that answers at once,
   * a promise on PostgreSQL.
   */
  answer<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    return this.enabled ? this.memo(key, compute) : whenReady(compute(), filledValue);
  }

  /**
   * As `answer`, also with the cache off: for aggregates every read would
   * otherwise recount. On SQLite the feed is read before every use (no
   * system call while nothing was committed). On PostgreSQL that read is a
   * round trip (`PostgresChangeFeed`), so it is made only when a value is
   * held for `key`; a read with nothing held computes at once, and what it
   * reads is stored as of the last look, which preceded it.
   */
  memo<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    const feed = this.#feed;
    if (feed instanceof ChangeFeed) {
      return this.#pollNow() ? this.#lookup(key, compute) : whenReady(compute(), filledValue);
    }
    if (!feed) return whenReady(compute(), filledValue);
    if (!this.#entries.has(key)) {
      // The first look sets the feed's starting point; nothing read before it is kept.
      if (!feed.started) void this.synced();
      return this.#fill(key, compute);
    }
    return feed
      .poll(this.#apply, this.#reset)
      .then((looked) => (looked ? this.#lookup(key, compute) : whenReady(compute(), filledValue)));
  }

  /**
   * `memo` for a caller that must answer at once (SQLite's reads): where the
   * feed answers later (PostgreSQL) it computes without remembering.
   */
  memoNow<T>(key: string, compute: () => Fill<T>): T {
    return this.#pollNow() ? (this.#lookup(key, compute) as T) : compute().value;
  }

  /**
   * The value of `key` while valid (counted as a hit), or undefined (the
   * caller fills it); at once, so always undefined on PostgreSQL.
   */
  peek<T>(key: string): T | undefined {
    if (!this.#pollNow()) return undefined;
    const known = this.#used(key);
    if (!known) this.misses++;
    return known?.value as T | undefined;
  }

  #lookup<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    const known = this.#used(key);
    return known ? (known.value as T) : this.#fill(key, compute);
  }

  #fill<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    this.misses++;
    const at = this.#tick;
    const started = performance.now();
    return whenReady(compute(), (fill) => {
      // On PostgreSQL the time includes the round trip: `cheap` says what it cannot.
      const costly = !fill.cheap && performance.now() - started >= this.#admitAfterMs;
      if (costly || this.#admits(key, fill.size)) this.store(key, fill, at);
      return fill.value;
    });
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
    if (fill.keep === false || fill.size > this.#maxChars || at < this.#clearedAt) return;
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

  /**
   * Reads the change feed: at once on SQLite, after a look that starts
   * after this call on PostgreSQL. False when the cache must not be used
   * for this read (inside a transaction; PostgreSQL unreachable).
   */
  synced(): MaybePromise<boolean> {
    return this.#feed ? this.#feed.poll(this.#apply, this.#reset) : false;
  }

  /** `synced` where it answers at once (SQLite); false on PostgreSQL, without a look. */
  #pollNow(): boolean {
    return this.#feed instanceof ChangeFeed && this.#feed.poll(this.#apply, this.#reset);
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
    this.#clearedAt = ++this.#tick;
  }

  readonly #reset = () => this.clear();

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

  readonly #apply = ({ topic, key }: Change): void => {
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
  };
}

const filledValue = <T>(fill: Fill<T>): T => fill.value;
