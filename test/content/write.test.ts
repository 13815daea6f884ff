import { describe, expect, test } from 'bun:test';
import { StaticPage } from '@/content/schemas';
import { expectAnonymousRefused, expectCustomerRefused } from '../support/auth-guards';
import { badRequest, createTestApp, problemOf } from '../support/harness';
import { fullPage } from './factory';
import { storesUnderTest } from './stores';

const body = (overrides: Record<string, unknown> = {}) => ({ ...fullPage(), ...overrides });

for (const store of storesUnderTest()) {
  async function employee() {
    const ctx = await store.app();
    return { ...ctx, token: await ctx.tokenFor('editor-1', 'employee') };
  }

  store.describe('PUT /content/static-pages/{slug}', () => {
    describe('happy', () => {
      test('creates (201 + Location) and then replaces (200), answering the page', async () => {
        const ctx = await employee();
        const created = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: body(),
        });
        expect(created.status).toBe(201);
        expect(created.headers.get('location')).toBe('/content/static-pages/about?language=en');
        expect(created.body).toEqual({
          content: '# About us\n\nWe list homes.',
          accounting: { costCenter: 'marketing', budget: 12.5 },
          title: 'About us',
          metaTitle: 'About us | Listings',
          metaDescription: 'Who we are.',
          category: 'company',
          slug: 'about',
          group: 'footer',
          language: 'en',
          seoMetaData: { canonical: '/about', robots: 'index,follow' },
        });
        expect(StaticPage.strict().parse(created.body)).toEqual(created.body as never);

        const replaced = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: { language: 'en', title: 'About', content: 'Short.', published: true },
        });
        expect(replaced.status).toBe(200);
        expect(replaced.headers.get('location')).toBeNull();
        // A full replacement: omitted optional fields reset to their defaults.
        expect(replaced.body).toEqual({
          content: 'Short.',
          accounting: {},
          title: 'About',
          metaTitle: '',
          metaDescription: '',
          category: '',
          slug: 'about',
          group: '',
          language: 'en',
          seoMetaData: {},
        });
      });

      test('the language is stored in one spelling: es-es and es-ES are the same page', async () => {
        const ctx = await employee();
        const first = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: body({ language: 'es-es' }),
        });
        expect(first.status).toBe(201);
        expect((first.body as { language: string }).language).toBe('es-ES');
        const second = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: body({ language: 'ES-ES' }),
        });
        expect(second.status).toBe(200);
      });

      test('the body may echo the slug of the path (a GET body sent back)', async () => {
        const ctx = await employee();
        await ctx.makePage('about');
        const read = await ctx.request<Record<string, unknown>>(
          'GET',
          '/content/static-pages/about',
        );
        const res = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: { ...read.body, published: true },
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(read.body);
      });

      test('group null means no group', async () => {
        const ctx = await employee();
        const res = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: body({ group: null }),
        });
        expect((res.body as { group: string }).group).toBe('');
      });
    });

    describe('a write is visible on the very next read', () => {
      test('create, edit, unpublish, delete: page and list follow at once', async () => {
        const ctx = await employee();
        const page = (extra: Record<string, unknown> = {}) => ({
          token: ctx.token,
          body: body(extra),
        });
        // Fill both caches with the "absent" answers first.
        expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(404);
        expect((await ctx.request('GET', '/content/static-pages/')).body).toEqual([]);

        await ctx.request('PUT', '/content/static-pages/about', page({ title: 'One' }));
        const one = await ctx.request('GET', '/content/static-pages/about');
        expect((one.body as { title: string }).title).toBe('One');
        expect((await ctx.request('GET', '/content/static-pages/')).body).toHaveLength(1);

        await ctx.request('PUT', '/content/static-pages/about', page({ title: 'Two' }));
        const two = await ctx.request('GET', '/content/static-pages/about', {
          headers: { 'if-none-match': one.headers.get('etag')! },
        });
        expect(two.status).toBe(200);
        expect((two.body as { title: string }).title).toBe('Two');

        await ctx.request('PUT', '/content/static-pages/about', page({ published: false }));
        expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(404);
        expect((await ctx.request('GET', '/content/static-pages/')).body).toEqual([]);

        await ctx.request('PUT', '/content/static-pages/about', page({ title: 'Three' }));
        expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(200);
        const deleted = await ctx.request('DELETE', '/content/static-pages/about?language=en', {
          token: ctx.token,
        });
        expect(deleted.status).toBe(204);
        expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(404);
        expect((await ctx.request('GET', '/content/static-pages/')).body).toEqual([]);
      });

      test('a new language shows up for a slug already cached', async () => {
        const ctx = await employee();
        await ctx.request('PUT', '/content/static-pages/about', { token: ctx.token, body: body() });
        const en = await ctx.request('GET', '/content/static-pages/about?language=es');
        expect((en.body as { language: string }).language).toBe('en');
        await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: body({ language: 'es' }),
        });
        const es = await ctx.request('GET', '/content/static-pages/about?language=es');
        expect((es.body as { language: string }).language).toBe('es');
      });
    });

    describe('error', () => {
      test('a NUL in the group, the content, inside JSON or in a key: 400 naming the field on either database, nothing written', async () => {
        const ctx = await employee();
        for (const [field, extra] of [
          ['group', { group: 'foot\u0000er' }],
          ['content', { content: 'a\u0000b' }],
          ['seoMetaData.canonical', { seoMetaData: { canonical: 'a\u0000b' } }],
          // A key holding NUL: its object is named, the key never echoed.
          ['seoMetaData', { seoMetaData: { 'can\u0000onical': '/about' } }],
        ] as const) {
          const res = await ctx.request('PUT', '/content/static-pages/about', {
            token: ctx.token,
            body: body(extra),
          });
          expect(res.status).toBe(400);
          expect(res.body).toEqual(
            badRequest([field, 'must not contain the NUL character (U+0000)']),
          );
        }
        expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(404);
        expect(await ctx.storedEvents()).toEqual([]);
        expect(await ctx.storedAuditActions()).toEqual([]);
      });

      // Body values are never echoed in a reason, only the URL's.
      test.each<[string, Record<string, unknown>, string, string]>([
        ['no title', { title: undefined }, 'title', 'is required'],
        ['empty title', { title: '' }, 'title', 'must not be empty'],
        [
          'title over 200 characters',
          { title: 'x'.repeat(201) },
          'title',
          'must have at most 200 characters',
        ],
        ['no content', { content: undefined }, 'content', 'is required'],
        ['no language', { language: undefined }, 'language', 'is required'],
        [
          'a bad language',
          { language: 'english' },
          'language',
          'must be a language code such as en or es-ES',
        ],
        ['no published flag', { published: undefined }, 'published', 'is required'],
        ['published not a boolean', { published: 'yes' }, 'published', 'must be true or false'],
        ['accounting not an object', { accounting: [1, 2] }, 'accounting', 'must be an object'],
        [
          'seoMetaData over 16 KiB',
          { seoMetaData: { blob: 'x'.repeat(17_000) } },
          'seoMetaData',
          'The object is more than 16384 characters long once serialized',
        ],
        ['an unknown field', { author: 'me' }, 'author', 'is not a field of this body'],
        ['an id', { id: 3 }, 'id', 'is not a field of this body'],
        [
          'another slug in the body',
          { slug: 'terms' },
          'slug',
          'must be the slug of the path, "about", or left out',
        ],
      ])('%s → 400 problem', async (_, overrides, name, reason) => {
        const ctx = await employee();
        const res = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          body: body(overrides),
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body).toEqual(badRequest([name, reason]));
      });

      const SLUG = 'must be lower-case letters, digits and single hyphens';
      test.each([
        ['About', `${SLUG} (got "About")`],
        ['about_us', `${SLUG} (got "about_us")`],
        ['-about', `${SLUG} (got "-about")`],
        ['about--us', `${SLUG} (got "about--us")`],
        ['a'.repeat(101), `must have at most 100 characters (got "${'a'.repeat(64)}…")`],
      ])('slug %p → 400', async (slug, reason) => {
        const ctx = await employee();
        const res = await ctx.request('PUT', `/content/static-pages/${slug}`, {
          token: ctx.token,
          body: body(),
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(badRequest(['slug', reason]));
      });

      test('a body that is not JSON, or no body → 415 / 400', async () => {
        const ctx = await employee();
        const text = await ctx.request('PUT', '/content/static-pages/about', {
          token: ctx.token,
          raw: 'title=x',
          headers: { 'content-type': 'text/plain' },
        });
        expect(text.status).toBe(415);
        const none = await ctx.request('PUT', '/content/static-pages/about', { token: ctx.token });
        expect(none.status).toBe(400);
      });
    });

    describe('auth', () => {
      test('anonymous → 401, even with a bad body', async () => {
        const ctx = await store.app();
        for (const sent of [body(), { nonsense: true }]) {
          const res = await ctx.request('PUT', '/content/static-pages/about', { body: sent });
          expect(res.status).toBe(401);
          expect(res.body).toEqual(problemOf(401));
        }
        expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(404);
      });

      test('customer → 403, even with a bad body', async () => {
        const ctx = await store.app();
        for (const sent of [body(), { nonsense: true }])
          await expectCustomerRefused(ctx, ['PUT /content/static-pages/BAD'], { body: sent });
      });

      test('an invalid token → 401', async () => {
        const ctx = await store.app();
        const res = await ctx.request('PUT', '/content/static-pages/about', {
          token: 'a.b.c',
          body: body(),
        });
        expect(res.status).toBe(401);
      });
    });
  });

  store.describe('DELETE /content/static-pages/{slug}?language=', () => {
    test('removes one language version → 204, the others stay', async () => {
      const ctx = await employee();
      await ctx.makePage('about');
      await ctx.makePage('about', { language: 'es-ES', title: 'Quiénes somos' });
      const res = await ctx.request('DELETE', '/content/static-pages/about?language=es-es', {
        token: ctx.token,
      });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const left = await ctx.request('GET', '/content/static-pages/');
      expect((left.body as { locale: string }[]).map((page) => page.locale)).toEqual(['en']);
    });

    test('absent → 404 naming the page', async () => {
      const ctx = await employee();
      await ctx.makePage('about');
      const res = await ctx.request('DELETE', '/content/static-pages/about?language=fr', {
        token: ctx.token,
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(
        problemOf(404, 'Static page "about" in language "fr" was not found'),
      );
    });

    test('no or bad language → 400', async () => {
      const ctx = await employee();
      for (const [query, reason] of [
        ['', 'is required'],
        ['?language=', 'must be a language code such as en or es-ES (got "")'],
        ['?language=english', 'must be a language code such as en or es-ES (got "english")'],
      ]) {
        const res = await ctx.request('DELETE', `/content/static-pages/about${query}`, {
          token: ctx.token,
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(badRequest(['language', reason!]));
      }
    });

    test('anonymous → 401, customer → 403', async () => {
      const ctx = await store.app();
      await ctx.makePage('about');
      await expectAnonymousRefused(ctx, ['DELETE /content/static-pages/about']);
      await expectCustomerRefused(ctx, ['DELETE /content/static-pages/about?language=en']);
      expect((await ctx.request('GET', '/content/static-pages/about')).status).toBe(200);
    });
  });
}

test('another method on a page → 405 with Allow', async () => {
  const ctx = createTestApp();
  const res = await ctx.request('POST', '/content/static-pages/about', { body: {} });
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toBe('DELETE, GET, PUT');
});

test('the OpenAPI document lists the four operations with their input', async () => {
  const ctx = createTestApp();
  const doc = (await ctx.request('GET', '/docs/json')).body as {
    paths: Record<string, Record<string, { tags?: string[]; requestBody?: unknown }>>;
  };
  const page = doc.paths['/content/static-pages/{slug}']!;
  expect(Object.keys(page).sort()).toEqual(['delete', 'get', 'put']);
  expect(doc.paths['/content/static-pages/']!.get!.tags).toEqual(['Static pages']);
  expect(JSON.stringify(page.put!.requestBody)).toContain('"published"');
});
