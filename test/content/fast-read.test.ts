import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../support/harness';
import { expectSameAnswers, type LaneCase, snapshot } from '../support/lanes';
import { makePage } from './factory';

describe('static-page reads: fast lane', () => {
  test('answer exactly as the full pipeline, 304s and errors included', async () => {
    const ctx = createTestApp();
    makePage(ctx.db, 'about');
    makePage(ctx.db, 'about', { language: 'es', title: 'Sobre nosotros' });
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
    expect(answers.map((answer) => answer.status)).toEqual([
      200, 200, 200, 304, 304, 200, 200, 404, 404, 404, 200, 200, 304, 404,
    ]);
    expect(JSON.parse(answers[1]!.body).title).toBe('Sobre nosotros');
  });
});
