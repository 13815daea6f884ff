import { expect, test } from 'bun:test';
import { fastStaticPageRead } from '@/api/content/fast-read';
import { expectSameAnswers, type LaneCase, lanesOf, snapshot } from '../support/lanes';
import { ANSWERS_WITHOUT_PROMISE, sqliteOnly } from '../support/postgres-mode';
import { storesUnderTest } from './stores';

for (const store of storesUnderTest()) {
  store.describe('static-page reads: fast lane', () => {
    test('answer 200 and 304 in the fast lane, and the errors and queries in the full pipeline, byte for byte the same', async () => {
      const ctx = await store.app();
      await ctx.makePage('about');
      await ctx.makePage('about', { language: 'es', title: 'Sobre nosotros' });
      const page = await snapshot(ctx.fetch, '/content/static-pages/about', {});
      const list = await snapshot(ctx.fetch, '/content/static-pages', {});
      const cases: LaneCase[] = [
        ['/content/static-pages/about', {}],
        ['/content/static-pages/about', { 'accept-language': 'es-ES,es;q=0.9' }],
        ['/content/static-pages/about?language=es', {}],
        ['/content/static-pages/about', { 'if-none-match': page.headers.etag! }],
        ['/content/static-pages/about', { 'if-none-match': `W/${page.headers.etag}, "x"` }],
        ['/content/static-pages/about', { 'if-none-match': '"other"' }],
        ['/content/static-pages/about', { authorization: 'Bearer anything' }],
        ['/content/static-pages/missing', {}],
        ['/content/static-pages/Not_A_Slug', {}],
        ['/content/static-pages/about/extra', {}],
        ['/content/static-pages', {}],
        ['/content/static-pages/', {}],
        ['/content/static-pages', { 'if-none-match': list.headers.etag! }],
        ['/content/static-pagesx', {}],
      ];
      const answers = await expectSameAnswers(ctx, cases);
      expect(lanesOf(answers)).toEqual([
        ...['200 fast', '200 fast', '200 full', '304 fast', '304 fast', '200 fast', '200 fast'],
        ...['404 full', '404 full', '404 full', '200 fast', '200 fast', '304 fast', '404 full'],
      ]);
      expect(JSON.parse(answers[1]!.body).title).toBe('Sobre nosotros');
    });

    test('with CORS on, a request naming an Origin is answered by the full pipeline', async () => {
      const ctx = await store.app({ env: { CORS_ORIGINS: 'https://app.example' } });
      await ctx.makePage('about');
      const origin = { origin: 'https://app.example' };
      const answers = await expectSameAnswers(ctx, [
        ['/content/static-pages/about', origin],
        ['/content/static-pages', origin],
        ['/content/static-pages/about', {}],
      ]);
      expect(lanesOf(answers)).toEqual(['200 full', '200 full', '200 fast']);
      expect(answers[0]!.headers.vary).toBe('Accept-Language, Origin');
    });
  });
}

sqliteOnly.test(
  ANSWERS_WITHOUT_PROMISE,
  'on SQLite the fast lane answers a page and the list at once, without a promise',
  async () => {
    const [sqlite] = storesUnderTest();
    const ctx = await sqlite!.app();
    await ctx.makePage('about');
    const route = fastStaticPageRead(ctx.deps);
    const request = new Request('http://localhost/content/static-pages/about');
    for (const rest of ['/about', '']) {
      const answer = route.answer(request, rest, '');
      expect(answer).not.toBeInstanceOf(Promise);
      expect(answer).toMatchObject({ status: 200 });
    }
  },
);
