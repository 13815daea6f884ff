import { chooseVariant } from '@/content/language';
import {
  findAllPublished,
  findPublishedVariants,
  listPublished,
  toStaticPage,
} from '@/content/service';
import type { Db } from '@/db/client';
import type { StaticPageRow } from '@/db/schema';
import { etagOfText } from '@/kernel/etag';

/**
 * Public content: shared caches may keep it a minute and must revalidate
 * with the ETag after that. Short, because an edit should show up quickly.
 */
export const CACHE_CONTROL = 'public, max-age=60';

/** A response body serialized once, with its strong ETag and headers. */
export interface PreparedResponse {
  body: string;
  etag: string;
  headers: Readonly<Record<string, string>>;
  /** The headers of a 304 for this body (RFC 9110 §15.4.5: no Content-Type, no body). */
  notModifiedHeaders: Readonly<Record<string, string>>;
}

export interface PreparedVariant {
  id: number;
  language: string;
  response: PreparedResponse;
}

function prepare(value: unknown, extra: Record<string, string> = {}): PreparedResponse {
  const body = JSON.stringify(value);
  const etag = etagOfText(body);
  const notModifiedHeaders = { etag, 'cache-control': CACHE_CONTROL, ...extra };
  return {
    body,
    etag,
    headers: { 'content-type': 'application/json', ...notModifiedHeaders },
    notModifiedHeaders,
  };
}

/** One page's response: the page fields only, negotiated on Accept-Language. */
export const preparePage = (row: StaticPageRow): PreparedVariant => ({
  id: row.id,
  language: row.language,
  response: prepare(toStaticPage(row), {
    'content-language': row.language,
    vary: 'Accept-Language',
  }),
});

export const prepareList = (db: Db): PreparedResponse => prepare(listPublished(db));

export interface StaticPageCacheOptions {
  /** `false` (STATIC_PAGES_CACHE=off) reads the database on every request. */
  enabled?: boolean;
  /** Most slugs kept (published or known-missing); the oldest entry makes room. */
  maxSlugs?: number;
  /** How often, at most, to look for writes made by another connection. */
  recheckMs?: number;
}

/**
 * In-process cache of the two static-page reads: per slug, every
 * published language version with its body and ETag precomputed (or none, for
 * a slug known to be missing), plus the list. Writes through this process
 * call `invalidate()`; writes by another process (`pages:import`) are noticed
 * through SQLite's `PRAGMA data_version` within `recheckMs`.
 *
 * Fills cannot race an invalidation: bun:sqlite is synchronous, so a read's
 * query and its store run without yielding to a write in between.
 */
export class StaticPageCache {
  readonly enabled: boolean;
  readonly #maxSlugs: number;
  readonly #recheckMs: number;
  readonly #pages = new Map<string, PreparedVariant[]>();
  #list: PreparedResponse | undefined;
  #dataVersion: number | undefined;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor({
    enabled = true,
    maxSlugs = 10_000,
    recheckMs = 1000,
  }: StaticPageCacheOptions = {}) {
    this.enabled = enabled;
    this.#maxSlugs = maxSlugs;
    this.#recheckMs = recheckMs;
  }

  /** Number of slugs held (published or known-missing). */
  get size(): number {
    return this.#pages.size;
  }

  get hasList(): boolean {
    return this.#list !== undefined;
  }

  page(slug: string): PreparedVariant[] | undefined {
    return this.#pages.get(slug);
  }

  storePage(slug: string, variants: PreparedVariant[]): void {
    if (!this.enabled) return;
    if (this.#pages.size >= this.#maxSlugs && !this.#pages.has(slug)) {
      const oldest = this.#pages.keys().next().value;
      if (oldest !== undefined) this.#pages.delete(oldest);
    }
    this.#pages.set(slug, variants);
  }

  list(): PreparedResponse | undefined {
    return this.#list;
  }

  storeList(list: PreparedResponse): void {
    if (this.enabled) this.#list = list;
  }

  invalidate(): void {
    this.#pages.clear();
    this.#list = undefined;
  }

  /**
   * Swaps in a complete set read at database `version` (taken before the
   * reads, so a write that lands meanwhile is still noticed later).
   */
  replace(version: number, pages: Map<string, PreparedVariant[]>, list: PreparedResponse): void {
    if (!this.enabled) return;
    this.invalidate();
    this.#dataVersion = version;
    for (const [slug, variants] of pages) this.storePage(slug, variants);
    this.#list = list;
  }

  /** Drops everything when another connection has committed since the last look. */
  syncWith(db: Db, now: number): void {
    if (now - this.#checkedAt < this.#recheckMs) return;
    this.#checkedAt = now;
    const version = dataVersionOf(db);
    if (version !== this.#dataVersion) {
      this.invalidate();
      this.#dataVersion = version;
    }
  }
}

/** Changes whenever another connection commits to the database file. */
export function dataVersionOf(db: Db): number {
  const row = db.$client.query('PRAGMA data_version').get() as { data_version: number };
  return row.data_version;
}

/** The response for one slug in the chosen language; undefined when none is published. */
export function readPage(
  db: Db,
  cache: StaticPageCache,
  now: number,
  slug: string,
  requested: string | undefined,
  acceptLanguage: string | null,
): PreparedResponse | undefined {
  if (!cache.enabled) {
    const row = chooseVariant(findPublishedVariants(db, slug), requested, acceptLanguage);
    return row && preparePage(row).response;
  }
  cache.syncWith(db, now);
  let variants = cache.page(slug);
  if (!variants) {
    variants = findPublishedVariants(db, slug).map(preparePage);
    cache.storePage(slug, variants);
  }
  return chooseVariant(variants, requested, acceptLanguage)?.response;
}

/** The response of the published-pages list. */
export function readList(db: Db, cache: StaticPageCache, now: number): PreparedResponse {
  if (cache.enabled) cache.syncWith(db, now);
  const cached = cache.list();
  if (cached) return cached;
  const list = prepareList(db);
  cache.storeList(list);
  return list;
}

export interface WarmFigures {
  pages: number;
  slugs: number;
}

/**
 * Loads every published page and the list into the cache (the worker job
 * `static-page-cache-warm` calls this at start and every 10 minutes).
 * Idempotent; a no-op when the cache is off.
 */
export function warmStaticPageCache(db: Db, cache: StaticPageCache): WarmFigures {
  if (!cache.enabled) return { pages: 0, slugs: 0 };
  // One read transaction: the pages, the list and the version agree.
  const { version, rows, list } = db.$client.transaction(() => ({
    version: dataVersionOf(db),
    rows: findAllPublished(db),
    list: prepareList(db),
  }))();
  const bySlug = new Map<string, PreparedVariant[]>();
  for (const row of rows) {
    const variants = bySlug.get(row.slug) ?? [];
    variants.push(preparePage(row));
    bySlug.set(row.slug, variants);
  }
  // Swapped in one synchronous step: no reader sees a half-warmed cache.
  cache.replace(version, bySlug, list);
  return { pages: rows.length, slugs: bySlug.size };
}
