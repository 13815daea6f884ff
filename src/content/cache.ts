import { chooseVariant } from '@/content/language';
import { toStaticPage } from '@/content/representation';
import type { PublishedFilter, StaticPageSummary } from '@/content/schemas';
import type { ReadCache } from '@/db/read-cache';
import type { StaticPageRow } from '@/db/sqlite/schema';
import { etagOfText } from '@/kernel/etag';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import { type Utf8, utf8 } from '@/kernel/utf8';
import type { ContentStore } from './store';

/**
 * Public content: shared caches may keep it a minute and must revalidate
 * with the ETag after that. Short, because an edit should show up quickly.
 */
export const CACHE_CONTROL = 'public, max-age=60';

/** A response body serialized once (UTF-8), with its strong ETag and headers. */
export interface PreparedResponse {
  body: Utf8;
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

/**
 * An employee's read of every version (`?published=false` or `all`): it may
 * name drafts, so no cache on the way keeps it.
 */
export const PRIVATE_CACHE_CONTROL = 'private, no-store';

function prepare(
  value: unknown,
  extra: Record<string, string> = {},
  cacheControl = CACHE_CONTROL,
): PreparedResponse {
  const json = JSON.stringify(value);
  const etag = etagOfText(json);
  const notModifiedHeaders = { etag, 'cache-control': cacheControl, ...extra };
  return {
    body: utf8(json),
    etag,
    headers: { 'content-type': 'application/json', ...notModifiedHeaders },
    notModifiedHeaders,
  };
}

/** One page's response: the page fields only, negotiated on Accept-Language. */
export const preparePage = (row: StaticPageRow, cacheControl = CACHE_CONTROL): PreparedVariant => ({
  id: row.id,
  language: row.language,
  response: prepare(
    toStaticPage(row),
    { 'content-language': row.language, vary: 'Accept-Language' },
    cacheControl,
  ),
});

export const prepareList = (list: StaticPageSummary[]): PreparedResponse => prepare(list);

export interface StaticPageCacheOptions {
  /** `false` (STATIC_PAGES_CACHE=off) reads the database on every request. */
  enabled?: boolean;
}

const SLUG = 'page:';
const LIST = 'pages';
const sizeOf = (variants: PreparedVariant[]) =>
  variants.reduce((sum, variant) => sum + variant.response.body.byteLength, 64);

/**
 * The two static-page reads in the service's `ReadCache`: per slug, every
 * published language version with its body and ETag precomputed (or none,
 * for a slug known to be missing), tagged with the slug, plus the list,
 * tagged with every page. A write to `static_pages` — through a route, a
 * script or another process (`pages:import`) — drops that slug and the list
 * before the next read (`ChangeFeed`).
 *
 * Fills cannot race a write: bun:sqlite is synchronous, so a read's query
 * and its store run without yielding to a write in between.
 */
export class StaticPageCache {
  readonly enabled: boolean;
  readonly #cache: ReadCache;

  constructor(cache: ReadCache, { enabled = true }: StaticPageCacheOptions = {}) {
    this.enabled = enabled;
    this.#cache = cache;
  }

  /** Number of slugs held (published or known-missing). */
  get size(): number {
    return this.#cache.count(SLUG);
  }

  get hasList(): boolean {
    return this.#cache.peek(LIST) !== undefined;
  }

  /** The variants held for `slug` while valid, without reading them (SQLite: at once). */
  held(slug: string): PreparedVariant[] | undefined {
    return this.enabled ? this.#cache.peek<PreparedVariant[]>(SLUG + slug) : undefined;
  }

  /** Every published variant of `slug`, prepared, from the cache or `load`. */
  page(slug: string, load: () => MaybePromise<StaticPageRow[]>): MaybePromise<PreparedVariant[]> {
    const prepared = () => whenReady(load(), (rows) => rows.map((row) => preparePage(row)));
    if (!this.enabled) return prepared();
    return this.#cache.memo(SLUG + slug, () =>
      whenReady(prepared(), (variants) => ({
        value: variants,
        size: sizeOf(variants),
        tags: [`s:${slug}`],
      })),
    );
  }

  /** Stores what was read after the look at `at` (`ReadCache.tick`). */
  storePage(slug: string, variants: PreparedVariant[], at?: number): void {
    if (!this.enabled) return;
    const fill = { value: variants, size: sizeOf(variants), tags: [`s:${slug}`] };
    this.#cache.store(SLUG + slug, fill, at);
  }

  /** The published-pages list, prepared, from the cache or `load`. */
  list(load: () => MaybePromise<StaticPageSummary[]>): MaybePromise<PreparedResponse> {
    const prepared = () => whenReady(load(), prepareList);
    if (!this.enabled) return prepared();
    return this.#cache.memo(LIST, () =>
      whenReady(prepared(), (list) => ({ value: list, size: list.body.byteLength, tags: ['S'] })),
    );
  }

  storeList(list: PreparedResponse, at?: number): void {
    if (!this.enabled) return;
    this.#cache.store(LIST, { value: list, size: list.body.byteLength, tags: ['S'] }, at);
  }

  /** The tick to pass to `storePage`/`storeList` for values read from now on. */
  tick(): number {
    return this.#cache.tick();
  }
}

/** The response for one slug in the chosen language; undefined when none is published. */
export function readPage(
  store: ContentStore,
  cache: StaticPageCache,
  slug: string,
  requested: string | undefined,
  acceptLanguage: string | null,
): MaybePromise<PreparedResponse | undefined> {
  return whenReady(
    cache.page(slug, () => store.publishedVariants(slug)),
    (variants) => chooseVariant(variants, requested, acceptLanguage)?.response,
  );
}

/** Whether a page in state `published` is one `filter` asks for. */
const admits = (filter: PublishedFilter, published: boolean) =>
  filter === 'all' || published === (filter === 'true');

/**
 * An employee's read of one slug among the versions `filter` admits (drafts
 * too), with the same language choice and the same ETag as the public read
 * (the tag a write's If-Match names); read from the store every time.
 */
export function readEveryPage(
  store: ContentStore,
  slug: string,
  filter: PublishedFilter,
  requested: string | undefined,
  acceptLanguage: string | null,
): MaybePromise<PreparedResponse | undefined> {
  return whenReady(store.everyVariant(slug), (rows) => {
    const admitted = rows.filter((row) => admits(filter, row.published));
    const chosen = chooseVariant(admitted, requested, acceptLanguage);
    return chosen && preparePage(chosen, PRIVATE_CACHE_CONTROL).response;
  });
}

/** An employee's list of the pages `filter` admits, each with its state; read every time. */
export const readEveryList = (
  store: ContentStore,
  filter: PublishedFilter,
): MaybePromise<PreparedResponse> =>
  whenReady(store.listEvery(filter === 'all' ? undefined : filter === 'true'), (entries) =>
    prepare(entries, {}, PRIVATE_CACHE_CONTROL),
  );

/** The response of the published-pages list. */
export const readList = (
  store: ContentStore,
  cache: StaticPageCache,
): MaybePromise<PreparedResponse> => cache.list(() => store.listPublished());

export interface WarmFigures {
  pages: number;
  slugs: number;
}

/**
 * Loads every published page and the list into the cache (the worker job
 * `static-page-cache-warm` calls this at start and every 10 minutes).
 * Idempotent; a no-op when the cache is off or the store's reads may not
 * be remembered.
 */
export function warmStaticPageCache(store: ContentStore, cache: StaticPageCache): WarmFigures {
  const reads = store.cacheable;
  if (!cache.enabled || !reads) return { pages: 0, slugs: 0 };
  void cache.hasList; // reads the change feed first: the tick below is of this moment
  const at = cache.tick();
  const { rows, list } = reads.everyPublished();
  const bySlug = new Map<string, PreparedVariant[]>();
  for (const row of rows) {
    const variants = bySlug.get(row.slug) ?? [];
    variants.push(preparePage(row));
    bySlug.set(row.slug, variants);
  }
  // Stored in one synchronous step: no reader sees a half-warmed cache.
  for (const [slug, variants] of bySlug) cache.storePage(slug, variants, at);
  cache.storeList(prepareList(list), at);
  return { pages: rows.length, slugs: bySlug.size };
}
