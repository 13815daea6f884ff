import type { Db } from '@/db/client';
import { WriteWatch } from '@/db/write-watch';
import type { Clock } from '@/kernel/clock';
import { etagOfText } from '@/kernel/etag';
import {
  PROPERTY_BY_ID,
  type PropertyRecord,
  toProperty,
} from '@/listings/properties/representation';
import { one } from '@/listings/sql';

/** A property's representation serialised once, with its ETag and the owner it is scoped by. */
export interface PropertyRead {
  json: string;
  etag: string;
  ownerId: string;
  /** Response headers of the 200 and of a 304, made on first use (`propertyReadAnswer`). */
  headers?: Headers;
  notModifiedHeaders?: Headers;
}

export interface PropertyReadCacheOptions {
  db: Db;
  clock: Clock;
  /** `false` (READ_CACHE=off) reads the database on every request. */
  enabled?: boolean;
  /** Most properties held; the oldest entry makes room. */
  maxEntries?: number;
}

/**
 * GET /properties/{id} without the query and serialisation while nothing
 * has been written: every entry is dropped as soon as the `WriteWatch` sees
 * a write (any table, so unit writes that rewrite the counters, the
 * reconcile worker and imports are covered without each writer having to
 * say so). A read is what a fresh query would give (docs/performance.md).
 */
export class PropertyReadCache {
  readonly #db: Db;
  readonly #watch: WriteWatch;
  readonly #enabled: boolean;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, PropertyRead>();

  constructor({ db, clock, enabled = true, maxEntries = 10_000 }: PropertyReadCacheOptions) {
    this.#db = db;
    this.#watch = new WriteWatch(db.$client, clock);
    this.#enabled = enabled;
    this.#maxEntries = maxEntries;
  }

  /** The property's representation; null when there is no such property. */
  read(id: string): PropertyRead | null {
    if (!this.#enabled) return this.#load(id);
    if (this.#watch.changed()) this.#entries.clear();
    const cached = this.#entries.get(id);
    if (cached) return cached;
    const loaded = this.#load(id);
    if (!loaded) return null;
    if (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(id, loaded);
    return loaded;
  }

  #load(id: string): PropertyRead | null {
    const row = one<PropertyRecord>(this.#db, PROPERTY_BY_ID, id);
    if (!row) return null;
    const json = JSON.stringify(toProperty(row));
    return { json, etag: etagOfText(json), ownerId: row.owner_id };
  }
}
