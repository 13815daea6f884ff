import { describe, expect, test } from 'bun:test';
import { createTestApp, problemOf } from '../support/harness';

/**
 * If-Match on the static page, plan and neighbourhood writes (properties:
 * etag.test.ts): the tag a read served makes the write, a stale one is 412
 * with nothing written, `*` holds for any stored version, and no header
 * writes as before. On SQLite, or PostgreSQL under TEST_DATABASE=postgres.
 */
const ctx = createTestApp();
const employee = await ctx.tokenFor('editor-1', 'employee');
const PRECONDITION_FAILED_LARAVEL = { message: 'Precondition Failed.' };

const send = (method: string, path: string, body?: unknown, ifMatch?: string) =>
  ctx.request(method, path, {
    token: employee,
    body,
    ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
  });

describe('static pages', () => {
  const page = (title: string) => ({ language: 'es', title, content: 'Hola.', published: true });
  const read = () => ctx.request('GET', '/content/static-pages/sobre?language=es');

  test('the ETag GET serves makes the write; the write answers the next tag', async () => {
    const created = await send('PUT', '/content/static-pages/sobre', page('Sobre'));
    expect(created.status).toBe(201);
    const served = await read();
    expect(created.headers.get('etag')).toBe(served.headers.get('etag'));
    const replaced = await send(
      'PUT',
      '/content/static-pages/sobre',
      page('Sobre nosotros'),
      served.headers.get('etag')!,
    );
    expect(replaced.status).toBe(200);
    const after = await read();
    expect(after.body).toMatchObject({ title: 'Sobre nosotros' });
    expect(replaced.headers.get('etag')).toBe(after.headers.get('etag'));
  });

  test('a stale tag is 412 with the problem body, nothing written (PUT and DELETE)', async () => {
    const stale = (await read()).headers.get('etag')!;
    expect((await send('PUT', '/content/static-pages/sobre', page('Otra'))).status).toBe(200);
    const before = await read();
    for (const [method, path, body] of [
      ['PUT', '/content/static-pages/sobre', page('Perdida')],
      ['DELETE', '/content/static-pages/sobre?language=es', undefined],
    ] as const) {
      const refused = await send(method, path, body, stale);
      expect([method, refused.status, refused.body]).toEqual([method, 412, problemOf(412)]);
    }
    const after = await read();
    expect(after.text).toBe(before.text);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  test('* holds for a stored version and fails where there is none; 404 before 412 on DELETE', async () => {
    expect((await send('PUT', '/content/static-pages/sobre', page('Con *'), '*')).status).toBe(200);
    const none = await send('PUT', '/content/static-pages/nueva', page('Nueva'), '*');
    expect([none.status, none.body]).toEqual([412, problemOf(412)]);
    expect((await ctx.request('GET', '/content/static-pages/nueva?language=es')).status).toBe(404);
    const missing = await send('DELETE', '/content/static-pages/nueva?language=es', undefined, '*');
    expect(missing.status).toBe(404);
    const current = (await read()).headers.get('etag')!;
    const removed = await send(
      'DELETE',
      '/content/static-pages/sobre?language=es',
      undefined,
      current,
    );
    expect(removed.status).toBe(204);
  });
});

describe('plans', () => {
  const PLANS = '/api/v1/admin/plans';
  const plan = (name: string) => ({ name, slug: 'pro', limits: { minute: 100 } });
  const listed = async () => (await send('GET', PLANS)).body;

  test('POST and PUT answer the plan ETag; it makes the next write', async () => {
    const created = await send('POST', PLANS, plan('Pro'));
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    const replaced = await send(
      'PUT',
      `${PLANS}/${id}`,
      plan('Pro 2'),
      created.headers.get('etag')!,
    );
    expect([replaced.status, replaced.body]).toEqual([
      200,
      { id, name: 'Pro 2', slug: 'pro', limits: { minute: 100 } },
    ]);
    const again = await send('PUT', `${PLANS}/${id}`, plan('Pro 3'), replaced.headers.get('etag')!);
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).not.toBe(replaced.headers.get('etag'));
  });

  test('a stale tag is 412 (Laravel body), nothing written; 404 first; * holds', async () => {
    const created = await send('POST', PLANS, { ...plan('Basic'), slug: 'basic' });
    const id = (created.body as { id: number }).id;
    const stale = created.headers.get('etag')!;
    const moved = await send('PUT', `${PLANS}/${id}`, { ...plan('Basic+'), slug: 'basic' });
    expect(moved.status).toBe(200);
    const before = await listed();
    for (const [method, body] of [
      ['PUT', { ...plan('Lost'), slug: 'basic' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await send(method, `${PLANS}/${id}`, body, stale);
      expect([method, refused.status, refused.body]).toEqual([
        method,
        412,
        PRECONDITION_FAILED_LARAVEL,
      ]);
    }
    expect(await listed()).toEqual(before);
    expect((await send('PUT', `${PLANS}/999`, plan('X'), '*')).status).toBe(404);
    expect((await send('DELETE', `${PLANS}/999`, undefined, stale)).status).toBe(404);
    expect((await send('DELETE', `${PLANS}/${id}`, undefined, '*')).status).toBe(204);
  });
});

describe('neighbourhoods', () => {
  const PATH = '/listings/neighbourhoods/sol';
  const listed = async () => (await send('GET', '/listings/neighbourhoods')).body;

  test('PUT answers the entry ETag; it makes the next write; a stale one is 412, nothing written', async () => {
    const none = await send('PUT', PATH, { cityId: 'madrid', name: 'Sol' }, '*');
    expect([none.status, none.body]).toEqual([412, problemOf(412)]);
    expect(await listed()).toEqual({ neighbourhoods: [] });

    const created = await send('PUT', PATH, { cityId: 'madrid', name: 'Sol' });
    expect(created.status).toBe(204);
    const first = created.headers.get('etag')!;
    const renamed = await send('PUT', PATH, { cityId: 'madrid', name: 'Puerta del Sol' }, first);
    expect(renamed.status).toBe(204);
    const before = await listed();
    const refused = await send('PUT', PATH, { cityId: 'madrid', name: 'Lost' }, first);
    expect([refused.status, refused.body]).toEqual([412, problemOf(412)]);
    expect(await listed()).toEqual(before);
    const current = renamed.headers.get('etag')!;
    expect((await send('PUT', PATH, { cityId: 'madrid', name: 'Sol' }, current)).status).toBe(204);
    expect((await send('PUT', PATH, { cityId: 'madrid', name: 'Sol.' }, '*')).status).toBe(204);
    expect(await listed()).toEqual({
      neighbourhoods: [{ id: 'sol', cityId: 'madrid', name: 'Sol.' }],
    });
  });
});
