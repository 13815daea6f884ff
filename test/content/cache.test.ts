import { describe, expect, test } from 'bun:test';
import { StaticPageCache, warmStaticPageCache } from '@/content/cache';
import { chooseVariant, parseAcceptLanguage } from '@/content/language';
import { ReadCache } from '@/db/read-cache';
import { openDatabase } from '@/db/sqlite/client';
import { rowsOf } from '../listings/support';
import { createTestApp, manualClock } from '../support/harness';
import { READ_CACHE, sqliteOnly } from '../support/postgres-mode';
import { addPage, makePage } from './factory';
import { postgresUnderTest } from './stores';

sqliteOnly.describe(READ_CACHE, 'warmStaticPageCache', () => {
  test('loads every published page and the list; reads then query nothing', async () => {
    const ctx = createTestApp();
    makePage(ctx.db, 'about');
    makePage(ctx.db, 'about', { language: 'es', title: 'Quiénes somos' });
    makePage(ctx.db, 'terms');
    makePage(ctx.db, 'careers', { published: false });
    const figures = warmStaticPageCache(ctx.deps.stores.content, ctx.deps.staticPages);
    expect(figures).toEqual({ pages: 3, slugs: 2 });
    expect(ctx.deps.staticPages.size).toBe(2);
    expect(ctx.deps.staticPages.hasList).toBe(true);
    const list = await ctx.request('GET', '/content/static-pages/');

    // Prove the reads come from memory: every one is a hit, none a fill.
    const { hits, misses } = ctx.deps.readCache;
    const es = await ctx.request('GET', '/content/static-pages/about', {
      headers: { 'accept-language': 'es' },
    });
    expect(es.status).toBe(200);
    expect((es.body as { title: string }).title).toBe('Quiénes somos');
    expect((await ctx.request('GET', '/content/static-pages/terms')).status).toBe(200);
    const cachedList = await ctx.request('GET', '/content/static-pages');
    expect(cachedList.body).toEqual(list.body);
    expect(cachedList.headers.get('etag')).toBe(list.headers.get('etag'));
    expect(ctx.deps.readCache.misses).toBe(misses);
    expect(ctx.deps.readCache.hits).toBe(hits + 3);
  });

  test('is idempotent and drops what was unpublished meanwhile', () => {
    const ctx = createTestApp();
    makePage(ctx.db, 'about');
    makePage(ctx.db, 'terms');
    expect(warmStaticPageCache(ctx.deps.stores.content, ctx.deps.staticPages)).toEqual({
      pages: 2,
      slugs: 2,
    });
    makePage(ctx.db, 'terms', { published: false });
    expect(warmStaticPageCache(ctx.deps.stores.content, ctx.deps.staticPages)).toEqual({
      pages: 1,
      slugs: 1,
    });
    expect(ctx.deps.staticPages.held('terms')).toBeUndefined();
  });

  test('is a no-op with the cache off', () => {
    const ctx = createTestApp({ env: { STATIC_PAGES_CACHE: 'off' } });
    makePage(ctx.db, 'about');
    expect(warmStaticPageCache(ctx.deps.stores.content, ctx.deps.staticPages)).toEqual({
      pages: 0,
      slugs: 0,
    });
    expect(ctx.deps.staticPages.size).toBe(0);
  });
});

describe('STATIC_PAGES_CACHE=off', () => {
  test('every read goes to the database, with the same bodies and ETags', async () => {
    const cached = createTestApp();
    const uncached = createTestApp({ env: { STATIC_PAGES_CACHE: 'off' } });
    expect(uncached.deps.staticPages.enabled).toBe(false);
    for (const ctx of [cached, uncached]) await addPage(ctx, 'about');
    const a = await cached.request('GET', '/content/static-pages/about');
    const b = await uncached.request('GET', '/content/static-pages/about');
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag')!);
    const c = await uncached.request('GET', '/content/static-pages/about', {
      headers: { 'if-none-match': a.headers.get('etag')! },
    });
    expect(c.status).toBe(304);
    expect(uncached.deps.staticPages.size).toBe(0);
    await rowsOf(uncached, 'DROP TABLE static_pages');
    expect((await uncached.request('GET', '/content/static-pages/about')).status).toBe(500);
  });
});

sqliteOnly.describe(READ_CACHE, 'writes by another process (pages:import)', () => {
  test('are noticed at once', async () => {
    const clock = manualClock();
    const ctx = createTestApp({ clock: clock });
    makePage(ctx.db, 'about', { title: 'Old' });
    expect((await ctx.request('GET', '/content/static-pages/')).body).toHaveLength(1);
    expect(
      ((await ctx.request('GET', '/content/static-pages/about')).body as { title: string }).title,
    ).toBe('Old');

    const other = openDatabase(ctx.config.databasePath);
    makePage(other, 'about', { title: 'New' });
    makePage(other, 'terms');
    other.$client.close();

    expect((await ctx.request('GET', '/content/static-pages/')).body).toHaveLength(2);
    const page = await ctx.request('GET', '/content/static-pages/about');
    expect((page.body as { title: string }).title).toBe('New');
  });
});

sqliteOnly.describe(READ_CACHE, 'StaticPageCache', () => {
  test("held in the service's bounded read cache, the least recently used making room", () => {
    const ctx = createTestApp();
    const cache = new StaticPageCache(new ReadCache({ db: ctx.db, maxEntries: 2 }));
    cache.storePage('a', []);
    cache.storePage('b', []);
    cache.held('a');
    cache.storePage('c', []);
    expect(cache.size).toBe(2);
    expect(cache.held('b')).toBeUndefined();
    expect(cache.held('a')).toEqual([]);
    expect(cache.held('c')).toEqual([]);
  });

  test('every hit makes the page the most recently used: exact LRU order', () => {
    const ctx = createTestApp();
    const cache = new StaticPageCache(new ReadCache({ db: ctx.db, maxEntries: 4 }));
    for (const slug of ['a', 'b', 'c', 'd']) cache.storePage(slug, []);
    cache.held('c');
    cache.held('a');
    for (const slug of ['e', 'f']) cache.storePage(slug, []);
    // Least recently used first: b, then d.
    expect(['a', 'b', 'c', 'd'].map((slug) => cache.held(slug) !== undefined)).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });

  test('a write to another table keeps every page; a write to a page drops that slug and the list', async () => {
    const ctx = createTestApp();
    makePage(ctx.db, 'about');
    makePage(ctx.db, 'terms');
    warmStaticPageCache(ctx.deps.stores.content, ctx.deps.staticPages);
    ctx.db.$client.run("INSERT INTO plans (name, slug) VALUES ('x', 'x-plan')");
    expect(ctx.deps.staticPages.size).toBe(2);
    expect(ctx.deps.staticPages.hasList).toBe(true);
    makePage(ctx.db, 'terms', { title: 'Terms, new' });
    expect(ctx.deps.staticPages.held('about')).toHaveLength(1);
    expect(ctx.deps.staticPages.held('terms')).toBeUndefined();
    expect(ctx.deps.staticPages.hasList).toBe(false);
  });

  test('unknown slugs are remembered as missing until a write', async () => {
    const ctx = createTestApp();
    expect((await ctx.request('GET', '/content/static-pages/nope')).status).toBe(404);
    expect(ctx.deps.staticPages.held('nope')).toEqual([]);
    // Slugs that cannot exist are never stored.
    await ctx.request('GET', '/content/static-pages/NOT_A_SLUG');
    expect(ctx.deps.staticPages.size).toBe(1);
  });
});

describe('language choice', () => {
  test('parseAcceptLanguage orders by q, keeps order on ties, drops q=0, * and junk', () => {
    expect(parseAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual([
      'fr-ch',
      'fr',
      'en',
      'de',
    ]);
    expect(parseAcceptLanguage('en;q=0.5, es;q=0.5, pt')).toEqual(['pt', 'en', 'es']);
    expect(parseAcceptLanguage('en;q=0, es;q=2, it;q=abc, de;level=1, pl;q=0.001')).toEqual([
      'de',
      'pl',
    ]);
    expect(parseAcceptLanguage('')).toEqual([]);
    expect(parseAcceptLanguage(null)).toEqual([]);
    expect(parseAcceptLanguage('é, <script>, en')).toEqual(['en']);
  });

  const variants = [{ language: 'pt-BR' }, { language: 'es-MX' }, { language: 'en-GB' }];
  test('a tag finds its own region, its language, or a sibling region', () => {
    expect(chooseVariant(variants, 'es-MX', null)).toBe(variants[1]!);
    expect(chooseVariant(variants, 'es', null)).toBe(variants[1]!);
    expect(chooseVariant(variants, 'es-AR', null)).toBe(variants[1]!);
    // The default `en` matches en-GB before "any".
    expect(chooseVariant(variants, undefined, 'it')).toBe(variants[2]!);
    expect(chooseVariant([{ language: 'pt-BR' }, { language: 'it' }], 'de', 'fr')).toEqual({
      language: 'pt-BR',
    });
    expect(chooseVariant([], 'en', null)).toBeUndefined();
  });
});

describe('a store whose reads may not be remembered (PostgreSQL)', () => {
  const postgres = postgresUnderTest();
  postgres.describe('the static-page cache', () => {
    test('stays empty: warming is a no-op and every read goes to the database', async () => {
      const ctx = await postgres.app();
      await ctx.makePage('about', { title: 'Old' });
      expect(warmStaticPageCache(ctx.deps.stores.content, ctx.deps.staticPages)).toEqual({
        pages: 0,
        slugs: 0,
      });
      const first = await ctx.request('GET', '/content/static-pages/about');
      expect((await ctx.request('GET', '/content/static-pages/')).status).toBe(200);
      expect(ctx.deps.staticPages.size).toBe(0);
      expect(ctx.deps.staticPages.hasList).toBe(false);
      await ctx.makePage('about', { title: 'New', language: 'en-GB' });
      const second = await ctx.request('GET', '/content/static-pages/about', {
        headers: { 'accept-language': 'en-GB' },
      });
      expect((first.body as { title: string }).title).toBe('Old');
      expect((second.body as { title: string }).title).toBe('New');
    });
  });
});
