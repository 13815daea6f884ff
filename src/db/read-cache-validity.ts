import type { Change } from '@/db/change-feed';
import { CacheEntries, type CacheEntry } from '@/db/read-cache-entries';
import { ChangedTags } from '@/db/read-cache-tags';

/**
 * The read cache's held values and whether each is still valid. Every change
 * read from the feed moves a tick and marks the tags it touches
 * (`ChangedTags`); a value is valid while none of its tags changed after the
 * tick it was read at, and is dropped on the first look that finds one. A
 * `clear` (a change it cannot tell, or too many tags) drops everything, and
 * a value read before it is never stored.
 */
export class HeldValues {
  readonly entries: CacheEntries;
  readonly #changed = new ChangedTags();
  #tick = 1;
  /** The tick of the last `clear`: a value read before it is never stored. */
  #clearedAt = 0;

  constructor(maxEntries: number, maxChars: number) {
    this.entries = new CacheEntries(maxEntries, maxChars);
  }

  /** The current tick, for a caller that reads first and stores later (`store`). */
  get tick(): number {
    return this.#tick;
  }

  /** Holds a value read after the look at tick `at`, unless a `clear` came since. */
  store(key: string, held: Omit<CacheEntry, 'checked'>): void {
    if (held.at < this.#clearedAt) return;
    this.entries.put(key, held);
  }

  /** The entry of `key` while valid; an entry found invalid is dropped. */
  valid(key: string): CacheEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.checked === this.#tick) return entry;
    if (this.#changed.changedAfter(entry.tags, entry.at)) {
      this.entries.drop(key);
      return undefined;
    }
    entry.checked = this.#tick;
    return entry;
  }

  /** Counts the valid values whose key starts with `prefix`. */
  count(prefix: string): number {
    let n = 0;
    for (const key of this.entries.keys()) if (key.startsWith(prefix) && this.valid(key)) n++;
    return n;
  }

  clear(): void {
    this.entries.clear();
    this.#changed.clear();
    this.#clearedAt = ++this.#tick;
  }

  /** For the change feed: marks one change's tags (`ChangedTags.apply`), or clears. */
  readonly apply = (change: Change): void => {
    if (!this.#changed.apply(change, ++this.#tick)) this.clear();
  };

  /** For the change feed: what it cannot tell drops everything. */
  readonly reset = (): void => this.clear();
}
