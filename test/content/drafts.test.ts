import { describe, expect, test } from 'bun:test';
import { StaticPage, StaticPageEntryList, StaticPageList } from '@/content/schemas';
import { badRequest, problemOf } from '../support/harness';
import { type ContentTestApp, storesUnderTest } from './stores';

const PUBLISHED_REASON = (got: string) =>
  `must be one of true, false, all (got ${JSON.stringify(got)})`;

for (const store of storesUnderTest()) {
  /** about (en, published; es, a draft), careers (en, a draft), terms (en, published). */
  async function withDrafts() {
    const ctx = await store.app();
    await ctx.makePage('about');
    await ctx.makePage('about', { language: 'es', title: 'Sobre nosotros', published: false });
    await ctx.makePage('careers', { title: 'Careers', published: false });
    await ctx.makePage('terms', { title: 'Terms' });
    return { ...ctx, token: await ctx.tokenFor('editor-1', 'employee') };
  }
  const read = (
    ctx: ContentTestApp,
    path: string,
    token?: string,
    headers?: Record<string, string>,
  ) => ctx.request<unknown>('GET', path, { token, headers });

  store.describe('static pages asked with ?published=', () => {
    describe('the list', () => {
      test('all: every page by id, each with its state, private and tagged', async () => {
        const ctx = await withDrafts();
        const res = await read(ctx, '/content/static-pages/?published=all', ctx.token);
        expect(res.status).toBe(200);
        const entries = StaticPageEntryList.parse(res.body);
        expect(entries.map(({ slug, locale, published }) => [slug, locale, published])).toEqual([
          ['about', 'en', true],
          ['about', 'es', false],
          ['careers', 'en', false],
          ['terms', 'en', true],
        ]);
        expect(entries[0]).toEqual({
          id: entries[0]!.id,
          slug: 'about',
          locale: 'en',
          group: 'footer',
          published: true,
        });
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        const etag = res.headers.get('etag')!;
        expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
        const again = await read(ctx, '/content/static-pages?published=all', ctx.token, {
          'if-none-match': etag,
        });
        expect(again.status).toBe(304);
        expect(again.text).toBe('');
      });

      test('false: the unpublished ones only; true: exactly the public list', async () => {
        const ctx = await withDrafts();
        const drafts = await read(ctx, '/content/static-pages/?published=false', ctx.token);
        expect(drafts.status).toBe(200);
        const entries = StaticPageEntryList.parse(drafts.body);
        expect(entries.map(({ slug, locale }) => `${slug}/${locale}`)).toEqual([
          'about/es',
          'careers/en',
        ]);
        expect(entries.every((entry) => entry.published === false)).toBe(true);

        const plain = await read(ctx, '/content/static-pages/');
        for (const path of ['/content/static-pages/?published=true', '/content/static-pages/']) {
          // Anyone may ask for the published ones; an employee gets the same bytes.
          for (const token of [undefined, ctx.token]) {
            const res = await read(ctx, path, token);
            expect(res.status).toBe(200);
            expect(res.text).toBe(plain.text);
            expect(res.headers.get('etag')).toBe(plain.headers.get('etag'));
            expect(res.headers.get('cache-control')).toBe('public, max-age=60');
          }
        }
        expect(StaticPageList.parse(plain.body).map((entry) => entry.slug)).toEqual([
          'about',
          'terms',
        ]);
      });

      test('the store filters in its query: asked for one state, it reads only those rows', async () => {
        const ctx = await withDrafts();
        const states = async (published?: boolean) =>
          (await ctx.deps.stores.content.listEvery(published)).map(
            ({ slug, locale, published }) => `${slug}/${locale}/${published}`,
          );
        expect(await states(false)).toEqual(['about/es/false', 'careers/en/false']);
        expect(await states(true)).toEqual(['about/en/true', 'terms/en/true']);
        expect(await states()).toEqual([
          'about/en/true',
          'about/es/false',
          'careers/en/false',
          'terms/en/true',
        ]);
      });

      test('a write shows at once in the employee list (it is never cached)', async () => {
        const ctx = await withDrafts();
        await read(ctx, '/content/static-pages/?published=all', ctx.token);
        await ctx.makePage('privacy', { published: false });
        const res = await read(ctx, '/content/static-pages/?published=false', ctx.token);
        const slugs = StaticPageEntryList.parse(res.body).map((entry) => entry.slug);
        expect(slugs).toContain('privacy');
      });
    });

    describe('one page', () => {
      test('all: the draft in the language asked, with the ETag a write checks', async () => {
        const ctx = await withDrafts();
        const res = await read(
          ctx,
          '/content/static-pages/about?language=es&published=all',
          ctx.token,
        );
        expect(res.status).toBe(200);
        const page = StaticPage.strict().parse(res.body);
        expect(page.title).toBe('Sobre nosotros');
        expect(page.language).toBe('es');
        expect(res.headers.get('content-language')).toBe('es');
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        const etag = res.headers.get('etag')!;
        // The tag is the write's: a PUT with it is accepted, a second with it refused.
        const put = (ifMatch: string) =>
          ctx.request('PUT', '/content/static-pages/about', {
            token: ctx.token,
            headers: { 'if-match': ifMatch },
            body: { language: 'es', title: 'Quiénes somos', content: 'Texto.', published: false },
          });
        expect((await put(etag)).status).toBe(200);
        const stale = await put(etag);
        expect(stale.status).toBe(412);
        expect(stale.body).toEqual(problemOf(412));
        // The old tag no longer matches: 200 with the new version, and its tag then 304.
        const changed = await read(
          ctx,
          '/content/static-pages/about?language=es&published=all',
          ctx.token,
          { 'if-none-match': etag },
        );
        expect(changed.status).toBe(200);
        const current = await read(
          ctx,
          '/content/static-pages/about?language=es&published=all',
          ctx.token,
          { 'if-none-match': changed.headers.get('etag')! },
        );
        expect(current.status).toBe(304);
      });

      test('the language choice runs among the versions the filter admits', async () => {
        const ctx = await withDrafts();
        const page = async (query: string) => {
          const res = await read(ctx, `/content/static-pages/about?${query}`, ctx.token);
          expect(res.status).toBe(200);
          return (res.body as { language: string }).language;
        };
        // Only the draft is unpublished: false answers it whatever the language asked.
        expect(await page('published=false')).toBe('es');
        expect(await page('published=false&language=en')).toBe('es');
        // all: the language asked, then the default language.
        expect(await page('published=all&language=es-MX')).toBe('es');
        expect(await page('published=all')).toBe('en');
        // The public read still does not see the draft.
        const publicRead = await read(ctx, '/content/static-pages/about?language=es');
        expect((publicRead.body as { language: string }).language).toBe('en');
        const careers = await read(ctx, '/content/static-pages/careers');
        expect(careers.status).toBe(404);
      });

      test('no version the filter admits → 404 naming the page', async () => {
        const ctx = await withDrafts();
        for (const path of [
          '/content/static-pages/terms?published=false',
          '/content/static-pages/missing?published=all',
          '/content/static-pages/Not%20A%20Slug?published=all',
        ]) {
          const res = await read(ctx, path, ctx.token);
          expect(res.status).toBe(404);
          const slug = decodeURIComponent(path.split('/')[3]!.split('?')[0]!);
          expect(res.body).toEqual(problemOf(404, `Static page "${slug}" was not found`));
        }
      });
    });

    describe('refused', () => {
      const paths = [
        '/content/static-pages/?published=all',
        '/content/static-pages/?published=false',
        '/content/static-pages/careers?published=all',
        '/content/static-pages/careers?language=en&published=false',
      ];

      test('anonymous → 401, a customer → 403, an invalid token → 401: nothing of a draft shown', async () => {
        const ctx = await withDrafts();
        const customer = await ctx.tokenFor('owner-1', 'customer');
        for (const path of paths) {
          const anonymous = await read(ctx, path);
          expect(anonymous.status).toBe(401);
          expect(anonymous.body).toEqual(problemOf(401));
          const asCustomer = await read(ctx, path, customer);
          expect(asCustomer.status).toBe(403);
          expect(asCustomer.body).toEqual(problemOf(403));
          const invalid = await read(ctx, path, 'not-a-token');
          expect(invalid.status).toBe(401);
          expect(invalid.body).toEqual(problemOf(401));
        }
      });

      test.each([['yes'], ['TRUE'], ['1'], ['']])(
        'a bad ?published=%p → 400 naming it, for anyone',
        async (value) => {
          const ctx = await withDrafts();
          for (const path of ['/content/static-pages/', '/content/static-pages/about']) {
            for (const token of [undefined, ctx.token]) {
              const res = await read(ctx, `${path}?published=${value}`, token);
              expect(res.status).toBe(400);
              expect(res.body).toEqual(badRequest(['published', PUBLISHED_REASON(value)]));
            }
          }
        },
      );

      test('a bad ?language= beside it → 400 before the credential is looked at', async () => {
        const ctx = await withDrafts();
        const res = await read(ctx, '/content/static-pages/about?language=e&published=all');
        expect(res.status).toBe(400);
        expect(res.body).toEqual(
          badRequest(['language', 'must be a language code such as en or es-ES (got "e")']),
        );
      });
    });
  });
}
