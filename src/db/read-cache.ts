import type { SQL } from 'bun';
import { PostgresChangeFeed } from '@/db/pg/change-feed';
import type { CacheEntry } from '@/db/read-cache-entries';
import { HeldValues } from '@/db/read-cache-validity';
import { ChangeFeed } from '@/db/sqlite/change-feed';
import type { Db } from '@/db/sqlite/client';
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
   * once the cache is full it is kept only when asked for more often than
   * what it would push out (`CacheEntries.admits`).
   */
  cheap?: boolean;
}

/**
 * A value of the cache and, when it was remembered and checked by a look on
 * PostgreSQL, the change feed's position in that look's snapshot.
 */
export interface Placed<T> {
  value: T;
  position?: number;
}

export interface ReadCacheOptions {
  /** The SQLite database whose change feed says what a write changed. */
  db?: Db;
  /** Or the PostgreSQL pool whose change feed does; neither: nothing is remembered. */
  postgres?: SQL;
  /** `false` (READ_CACHE=off): `answer` computes every time; `memo` still remembers. */
  enabled?: boolean;
  /**
   * Most values held: 20,000 by default. Each held value is objects the
   * collector walks and bytes in its heap whatever their size counts, so
   * the count is bounded as well as the bytes: with 50,000 (a property's
   * answer is about 1 KB, so the 64 MiB of the budget never bound it) a
   * cached read uniform over a million properties cost 66–67 µs of CPU
   * against 45–52 µs with the cache off; with 20,000, 48–54 µs
   * (docs/performance.md, "How many answers").
   */
  maxEntries?: number;
  /** Most characters held, all values together. */
  maxChars?: number;
  /**
   * Once the cache is full, an answer that took at least this long to
   * compute is kept at once; a quicker one only when asked for more often
   * than the least recently used entry it would push out (`CacheEntries.admits`).
   */
  admitAfterMs?: number;
}

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
  readonly #admitAfterMs: number;
  readonly #held: HeldValues;
  /** Answers served from the cache, and computed, since start (tests and diagnostics). */
  hits = 0;
  misses = 0;

  constructor({
    db,
    postgres,
    enabled = true,
    maxEntries = 20_000,
    maxChars = 64 * 1024 * 1024,
    admitAfterMs = 0.1,
  }: ReadCacheOptions) {
    this.#feed = db ? new ChangeFeed(db.$client) : postgres && new PostgresChangeFeed(postgres);
    this.enabled = enabled && this.#feed !== undefined;
    this.#admitAfterMs = admitAfterMs;
    this.#held = new HeldValues(maxEntries, maxChars);
  }

  get size(): number {
    return this.#held.entries.size;
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
   * `answer` for a value quick to read again (one row by key; its fill says
   * `cheap`). While such values are not held (`CacheEntries.cheapAsked`:
   * reads spread over far more keys than fit) fifteen reads in sixteen
   * compute at once, as with the cache off (`CacheEntries.looksUpCheap`):
   * the look, the key's hash and its count cost a read that cannot hit
   * about a tenth more CPU. The sixteenth counts, so reads that start to
   * repeat are held again.
   */
  answerCheap<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    if (this.enabled && this.#held.entries.looksUpCheap()) {
      return this.memo(key, compute);
    }
    return whenReady(compute(), filledValue);
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
    if (!this.#held.entries.get(key)) {
      // The first look sets the feed's starting point; nothing read before it is kept.
      if (!feed.started) void this.synced();
      return this.#fill(key, this.#held.entries.asked(key), compute);
    }
    return feed
      .poll(this.#held.apply, this.#held.reset)
      .then((looked) => (looked ? this.#lookup(key, compute) : whenReady(compute(), filledValue)));
  }

  /**
   * `answer`, and for a remembered value the change feed's position it was
   * checked at (`Placed`). On PostgreSQL that is the position the look
   * before it read in its snapshot (`PostgresChangeFeed.position`): the
   * value is valid as of that snapshot, so it is the value as read at that
   * position, and the caller needs no query of its own for it. Taken in the
   * same step as the check, so no later look comes between the two.
   */
  answerPlaced<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<Placed<T>> {
    const feed = this.#feed;
    if (!this.enabled || !(feed instanceof PostgresChangeFeed) || !this.#held.entries.get(key)) {
      return whenReady(this.answer(key, compute), (value) => ({ value }));
    }
    return feed.poll(this.#held.apply, this.#held.reset).then((looked) => {
      if (!looked) return whenReady(compute(), (fill) => ({ value: fill.value }));
      const position = feed.position;
      const hash = this.#held.entries.asked(key);
      const known = this.#used(key);
      if (known) return { value: known.value as T, position: position ?? undefined };
      return whenReady(this.#fill(key, hash, compute), (value) => ({ value }));
    });
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
    this.#held.entries.asked(key);
    const known = this.#used(key);
    if (!known) this.misses++;
    return known?.value as T | undefined;
  }

  #lookup<T>(key: string, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    const hash = this.#held.entries.asked(key);
    const known = this.#used(key);
    return known ? (known.value as T) : this.#fill(key, hash, compute);
  }

  #fill<T>(key: string, hash: number, compute: () => MaybePromise<Fill<T>>): MaybePromise<T> {
    this.misses++;
    const at = this.#held.tick;
    const started = performance.now();
    return whenReady(compute(), (fill) => {
      if (fill.cheap) this.#held.entries.cheapAsked(hash, false);
      // On PostgreSQL the time includes the round trip: `cheap` says what it cannot.
      const costly = !fill.cheap && performance.now() - started >= this.#admitAfterMs;
      const wanted = fill.keep !== false && (!fill.cheap || this.#held.entries.heldCheap);
      if (wanted && (costly || this.#held.entries.admits(hash, fill.size))) {
        this.store(key, fill, at, hash);
      }
      return fill.value;
    });
  }

  /** A valid entry, counted as a hit and made the most recently used. */
  #used(key: string): CacheEntry | undefined {
    const known = this.#held.valid(key);
    if (!known) return undefined;
    this.hits++;
    this.#held.entries.used(key);
    if (known.cheap) this.#held.entries.cheapAsked(known.hash, true);
    return known;
  }

  /** Stores `fill` as read after the look at tick `at` (`tick()`, taken before the read). */
  store<T>(
    key: string,
    fill: Fill<T>,
    at = this.#held.tick,
    hash = Bun.hash.cityHash32(key),
  ): void {
    if (fill.keep === false) return;
    const { value, size, tags } = fill;
    this.#held.store(key, { value, size, tags, at, hash, cheap: fill.cheap === true });
  }

  /**
   * Reads the change feed: at once on SQLite, after a look that starts
   * after this call on PostgreSQL. False when the cache must not be used
   * for this read (inside a transaction; PostgreSQL unreachable).
   */
  synced(): MaybePromise<boolean> {
    return this.#feed ? this.#feed.poll(this.#held.apply, this.#held.reset) : false;
  }

  /** `synced` where it answers at once (SQLite); false on PostgreSQL, without a look. */
  #pollNow(): boolean {
    return this.#feed instanceof ChangeFeed && this.#feed.poll(this.#held.apply, this.#held.reset);
  }

  /** The current tick, for a caller that reads first and stores later (`store`). */
  tick(): number {
    return this.#held.tick;
  }

  /** Counts the valid values whose key starts with `prefix`. */
  count(prefix: string): number {
    return this.#held.count(prefix);
  }

  clear(): void {
    this.#held.clear();
  }
}

const filledValue = <T>(fill: Fill<T>): T => fill.value;
