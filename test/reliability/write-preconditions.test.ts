import { describe, expect, test } from 'bun:test';
import { badRequest, createTestApp, problemOf } from '../support/harness';

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

/**
 * The single-entry reads an editor opens: each answers the tag its write
 * takes, so a change made between opening and saving is refused (412).
 */
const customerToken = await ctx.tokenFor('owner-1', 'customer');
describe('plan and neighbourhood reads carry the write tag', () => {
  const as = (path: string, token?: string) => ctx.request('GET', path, { token });

  test('GET /admin/plans/{id}: the plan and its ETag; a change after the read is refused', async () => {
    const PLANS = '/api/v1/admin/plans';
    const created = await send('POST', PLANS, { name: 'Read', slug: 'read', limits: { day: 9 } });
    const id = (created.body as { id: number }).id;
    const opened = await as(`${PLANS}/${id}`, employee);
    expect([opened.status, opened.body]).toEqual([
      200,
      { id, name: 'Read', slug: 'read', limits: { day: 9 } },
    ]);
    const tag = opened.headers.get('etag')!;
    expect(tag).toBe(created.headers.get('etag')!);
    // Someone else saves after this editor opened it; the editor's save is refused.
    const theirs = await send(
      'PUT',
      `${PLANS}/${id}`,
      { name: 'Theirs', slug: 'read', limits: {} },
      tag,
    );
    expect(theirs.status).toBe(200);
    const mine = await send(
      'PUT',
      `${PLANS}/${id}`,
      { name: 'Mine', slug: 'read', limits: {} },
      tag,
    );
    expect([mine.status, mine.body]).toEqual([412, PRECONDITION_FAILED_LARAVEL]);
    const after = await as(`${PLANS}/${id}`, employee);
    expect(after.body).toMatchObject({ name: 'Theirs' });
    expect(after.headers.get('etag')).toBe(theirs.headers.get('etag')!);
  });

  test('GET /admin/plans/{id}: 404 for none, a built-in or a non-number; 401, 403 (Laravel bodies)', async () => {
    for (const id of ['999', '1', '2', 'abc']) {
      const res = await as(`/api/v1/admin/plans/${id}`, employee);
      expect([id, res.status, res.body]).toEqual([id, 404, { message: 'Not Found.' }]);
    }
    const anonymous = await as('/api/v1/admin/plans/3');
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: 'Unauthenticated.' }]);
    const customer = await as('/api/v1/admin/plans/3', customerToken);
    expect([customer.status, customer.body]).toEqual([
      403,
      { message: 'This action is unauthorized.' },
    ]);
  });

  test('GET /listings/neighbourhoods/{id}: the entry and its ETag; a change after the read is refused', async () => {
    const PATH = '/listings/neighbourhoods/retiro';
    const created = await send('PUT', PATH, { cityId: 'madrid', name: 'Retiro' });
    // Anyone signed in reads it, as they read the list.
    const opened = await as(PATH, customerToken);
    expect([opened.status, opened.body]).toEqual([
      200,
      { id: 'retiro', cityId: 'madrid', name: 'Retiro' },
    ]);
    const tag = opened.headers.get('etag')!;
    expect(tag).toBe(created.headers.get('etag')!);
    const theirs = await send('PUT', PATH, { cityId: 'madrid', name: 'El Retiro' }, tag);
    expect(theirs.status).toBe(204);
    const mine = await send('PUT', PATH, { cityId: 'madrid', name: 'Mine' }, tag);
    expect([mine.status, mine.body]).toEqual([412, problemOf(412)]);
    expect((await as(PATH, employee)).body).toEqual({
      id: 'retiro',
      cityId: 'madrid',
      name: 'El Retiro',
    });
  });

  test('GET /listings/neighbourhoods/{id}: 404 naming it, 400 for a bad id, 401 anonymous', async () => {
    const missing = await as('/listings/neighbourhoods/nowhere', employee);
    expect([missing.status, missing.body]).toEqual([
      404,
      problemOf(404, 'Neighbourhood "nowhere" was not found'),
    ]);
    const bad = await as('/listings/neighbourhoods/_bad', employee);
    expect([bad.status, bad.body]).toEqual([
      400,
      badRequest(['id', 'must be 1 to 64 letters, digits, _ and -, not first _ or - (got "_bad")']),
    ]);
    const anonymous = await as('/listings/neighbourhoods/retiro');
    expect([anonymous.status, anonymous.body]).toEqual([401, problemOf(401)]);
  });
});
