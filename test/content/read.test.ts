import { describe, expect, test } from 'bun:test';
import { StaticPage, StaticPageList } from '@/content/schemas';
import { badRequest, problemOf } from '../support/harness';
import { type ContentTestApp, storesUnderTest } from './stores';

const PAGE_FIELDS = [
  'content',
  'accounting',
  'title',
  'metaTitle',
  'metaDescription',
  'language',
  'category',
  'slug',
  'group',
  'seoMetaData',
];

for (const store of storesUnderTest()) {
  store.describe('GET /content/static-pages/{slug}', () => {
    describe('happy', () => {
      test('answers exactly the page fields, each with its stored value', async () => {
        const ctx = await store.app();
        await ctx.makePage('about');
        const res = await ctx.request<Record<string, unknown>>(
          'GET',
          '/content/static-pages/about',
        );
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(Object.keys(res.body).sort()).toEqual([...PAGE_FIELDS].sort());
        expect(res.body.content).toBe('# About us\n\nWe list homes.');
        expect(res.body.accounting).toEqual({ costCenter: 'marketing', budget: 12.5 });
        expect(res.body.title).toBe('About us');
        expect(res.body.metaTitle).toBe('About us | Listings');
        expect(res.body.metaDescription).toBe('Who we are.');
        expect(res.body.language).toBe('en');
        expect(res.body.category).toBe('company');
        expect(res.body.slug).toBe('about');
        expect(res.body.group).toBe('footer');
        expect(res.body.seoMetaData).toEqual({ canonical: '/about', robots: 'index,follow' });
        expect(StaticPage.strict().parse(res.body)).toEqual(res.body as never);
      });

      test('carries a strong ETag, Cache-Control and the chosen language', async () => {
        const ctx = await store.app();
        await ctx.makePage('about');
        const res = await ctx.request('GET', '/content/static-pages/about');
        expect(res.headers.get('etag')).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
        expect(res.headers.get('cache-control')).toBe('public, max-age=60');
        expect(res.headers.get('content-language')).toBe('en');
        expect(res.headers.get('vary')).toBe('Accept-Language');
      });

      test('with CORS on, Vary names both Accept-Language and Origin', async () => {
        const ctx = await store.app({ env: { CORS_ORIGINS: 'https://app.test' } });
        await ctx.makePage('about');
        const res = await ctx.request('GET', '/content/static-pages/about', {
          headers: { origin: 'https://app.test' },
        });
        expect(res.headers.get('vary')).toBe('Accept-Language, Origin');
        const list = await ctx.request('GET', '/content/static-pages/', {
          headers: { origin: 'https://app.test' },
        });
        expect(list.headers.get('vary')).toBe('Origin');
      });

      test('304 flow: a matching If-None-Match answers 304 without a body, a stale one 200', async () => {
        const ctx = await store.app();
        await ctx.makePage('about');
        const first = await ctx.request('GET', '/content/static-pages/about');
        const etag = first.headers.get('etag')!;
        for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const again = await ctx.request('GET', '/content/static-pages/about', {
            headers: { 'if-none-match': header },
          });
          expect(again.status).toBe(304);
          expect(again.text).toBe('');
          expect(again.headers.get('etag')).toBe(etag);
          expect(again.headers.get('cache-control')).toBe('public, max-age=60');
        }
        const stale = await ctx.request('GET', '/content/static-pages/about', {
          headers: { 'if-none-match': '"not-it"' },
        });
        expect(stale.status).toBe(200);
        expect(stale.body).toEqual(first.body);
      });

      test('the ETag changes with the content and differs per language', async () => {
        const ctx = await store.app();
        await ctx.makePage('about');
        await ctx.makePage('about', { language: 'es', title: 'Quiénes somos' });
        const en = await ctx.request('GET', '/content/static-pages/about?language=en');
        const es = await ctx.request('GET', '/content/static-pages/about?language=es');
        expect(en.headers.get('etag')).not.toBe(es.headers.get('etag'));
      });
    });

    describe('language choice (?language=, Accept-Language, en, any)', () => {
      async function multilingual() {
        const ctx = await store.app();
        await ctx.makePage('about', { language: 'fr', title: 'À propos' });
        await ctx.makePage('about', { language: 'es', title: 'Quiénes somos' });
        await ctx.makePage('about', { language: 'en', title: 'About us' });
        await ctx.makePage('about', { language: 'de', title: 'Über uns', published: false });
        return ctx;
      }
      const titleOf = async (ctx: ContentTestApp, path: string, accept?: string) => {
        const res = await ctx.request<{ title: string; language: string }>('GET', path, {
          headers: accept ? { 'accept-language': accept } : {},
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-language')).toBe(res.body.language);
        return res.body.title;
      };

      test('1. ?language= wins over Accept-Language', async () => {
        const ctx = await multilingual();
        expect(await titleOf(ctx, '/content/static-pages/about?language=es', 'fr')).toBe(
          'Quiénes somos',
        );
        expect(await titleOf(ctx, '/content/static-pages/about?language=ES', 'fr')).toBe(
          'Quiénes somos',
        );
        // A region the pages lack falls back to its language.
        expect(await titleOf(ctx, '/content/static-pages/about?language=es-MX')).toBe(
          'Quiénes somos',
        );
      });

      test('2. then Accept-Language, by q-value', async () => {
        const ctx = await multilingual();
        expect(await titleOf(ctx, '/content/static-pages/about', 'es')).toBe('Quiénes somos');
        expect(await titleOf(ctx, '/content/static-pages/about', 'es;q=0.5, fr;q=0.8')).toBe(
          'À propos',
        );
        expect(await titleOf(ctx, '/content/static-pages/about', 'it, fr-CA;q=0.9, es;q=0.7')).toBe(
          'À propos',
        );
        // ?language= for a language with no page falls through to the header.
        expect(await titleOf(ctx, '/content/static-pages/about?language=it', 'es')).toBe(
          'Quiénes somos',
        );
        // q=0 means "not this one"; an unpublished language is never chosen.
        expect(await titleOf(ctx, '/content/static-pages/about', 'fr;q=0, de, es;q=0.1')).toBe(
          'Quiénes somos',
        );
      });

      test('3. then the default language en', async () => {
        const ctx = await multilingual();
        expect(await titleOf(ctx, '/content/static-pages/about')).toBe('About us');
        expect(await titleOf(ctx, '/content/static-pages/about', 'it, pt;q=0.5')).toBe('About us');
        expect(await titleOf(ctx, '/content/static-pages/about?language=it', 'garbage;;;')).toBe(
          'About us',
        );
      });

      test('4. then any published language, lowest id first', async () => {
        const ctx = await store.app();
        await ctx.makePage('faq', { language: 'de', title: 'Hilfe', published: false });
        await ctx.makePage('faq', { language: 'fr', title: 'Aide' });
        await ctx.makePage('faq', { language: 'es', title: 'Ayuda' });
        expect(await titleOf(ctx, '/content/static-pages/faq', 'it')).toBe('Aide');
        expect(await titleOf(ctx, '/content/static-pages/faq?language=en')).toBe('Aide');
      });
    });

    describe('error', () => {
      test('missing slug → 404 whose detail names the page', async () => {
        const ctx = await store.app();
        const res = await ctx.request('GET', '/content/static-pages/about');
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body).toEqual({
          type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
          title: 'Not Found',
          status: 404,
          detail: 'Static page "about" was not found',
        });
      });

      test('a page published in no language → 404', async () => {
        const ctx = await store.app();
        await ctx.makePage('careers', { published: false });
        await ctx.makePage('careers', { language: 'es', published: false });
        const res = await ctx.request('GET', '/content/static-pages/careers?language=es');
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404, 'Static page "careers" was not found'));
      });

      test('a slug that cannot exist → 404 naming it', async () => {
        const ctx = await store.app();
        const res = await ctx.request('GET', '/content/static-pages/About%20Us');
        expect(res.status).toBe(404);
        expect(res.body).toEqual(problemOf(404, 'Static page "About Us" was not found'));
      });

      test.each([['e'], ['english'], ['en_GB'], ['en-'], ['']])(
        'a bad ?language=%p → 400',
        async (language) => {
          const ctx = await store.app();
          await ctx.makePage('about');
          const res = await ctx.request('GET', `/content/static-pages/about?language=${language}`);
          expect(res.status).toBe(400);
          expect(res.body).toEqual(
            badRequest([
              'language',
              `must be a language code such as en or es-ES (got ${JSON.stringify(language)})`,
            ]),
          );
        },
      );

      // The SQLite connection closed or its table gone; PostgreSQL's failures are unknown errors alike.
      test.skipIf(store.name !== 'SQLite')(
        'the store failing → 500 with the fixed body',
        async () => {
          const ctx = await store.app();
          await ctx.makePage('about');
          ctx.db.$client.close();
          for (const path of ['/content/static-pages/about', '/content/static-pages/']) {
            const res = await ctx.request('GET', path);
            expect(res.status).toBe(500);
            expect(res.headers.get('content-type')).toBe('application/problem+json');
            expect(res.body).toEqual({
              type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
              title: 'Internal Server Error',
              status: 500,
              detail: 'Internal Server Error',
            });
          }
        },
      );

      test.skipIf(store.name !== 'SQLite')(
        'a missing table → 500 with the fixed body, nothing internal',
        async () => {
          const ctx = await store.app();
          ctx.db.$client.exec('DROP TABLE static_pages');
          const res = await ctx.request('GET', '/content/static-pages/about');
          expect(res.status).toBe(500);
          expect(res.body).toEqual(problemOf(500));
          expect(res.text).not.toContain('static_pages');
        },
      );
    });
  });

  store.describe('GET /content/static-pages/', () => {
    test('lists only published pages, in id order, group "" when none', async () => {
      const ctx = await store.app();
      const terms = await ctx.makePage('terms', { group: '' });
      await ctx.makePage('careers', { published: false });
      const aboutEn = await ctx.makePage('about', { group: 'footer' });
      const aboutEs = await ctx.makePage('about', { language: 'es-ES', group: 'footer' });
      const res = await ctx.request('GET', '/content/static-pages/');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.body).toEqual([
        { id: terms.id, slug: 'terms', locale: 'en', group: '' },
        { id: aboutEn.id, slug: 'about', locale: 'en', group: 'footer' },
        { id: aboutEs.id, slug: 'about', locale: 'es-ES', group: 'footer' },
      ]);
      expect(StaticPageList.parse(res.body)).toEqual(res.body as never);
      expect(terms.id).toBeLessThan(aboutEn.id);
    });

    test('answers with and without the trailing slash', async () => {
      const ctx = await store.app();
      await ctx.makePage('about');
      const slash = await ctx.request('GET', '/content/static-pages/');
      const bare = await ctx.request('GET', '/content/static-pages');
      expect(bare.status).toBe(200);
      expect(bare.body).toEqual(slash.body);
    });

    test('empty store → []', async () => {
      const ctx = await store.app();
      const res = await ctx.request('GET', '/content/static-pages');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    test('304 flow on the list', async () => {
      const ctx = await store.app();
      await ctx.makePage('about');
      const first = await ctx.request('GET', '/content/static-pages/');
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
      expect(first.headers.get('cache-control')).toBe('public, max-age=60');
      const again = await ctx.request('GET', '/content/static-pages', {
        headers: { 'if-none-match': etag },
      });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });
  });
}
