import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { z } from 'zod';
import { TokenService } from '@/auth/tokens';
import { StaticPageInput } from '@/content/schemas';
import { sqliteUnderTest } from '../accounts/stores';
import { ORIGIN } from '../accounts/support';
import { listingsContext, postProperty, propertyBody } from '../listings/support';
import { freePort, JWT_SECRET, startServer } from '../slow/support';
import { badRequest, problemOf } from '../support/harness';
import { unboundedPaths } from './bounds';

const ctx = await listingsContext();
const TEN_MB = 10 * 1024 * 1024;
const MESSAGE = expect.any(String);

const TRANSACTIONS = 'GET /api/v1/c/transactions query';
const IMPORT = 'POST /api/v1/admin/transactions body';
/**
 * Inputs bounded otherwise than by a declared maximum (each shown by a test
 * below): the unknown keys of the browser's WebAuthn result are ignored by
 * @simplewebauthn; the customer API declares its list query as plain strings
 * and checks them in the handler, so that failures answer its 422 (integers
 * in range, Y-m-d dates, amounts of at most 13 digits, ids of at most 200
 * characters); the transaction import checks its row count (10,000) in the
 * handler and its amount, currency and date by refinements that accept only
 * short values. Everything is also under the 8 KiB URL and 1 MiB body caps.
 */
const ALLOWED = new Set([
  'POST /auth/passkey/register body $.response.* (open)',
  'POST /auth/passkey/register body $.response.response.* (open)',
  'POST /auth/passkey/authenticate body $.response.* (open)',
  'POST /auth/passkey/authenticate body $.response.response.* (open)',
  ...['page', 'per_page', 'pay_date_from', 'pay_date_to', 'amount_from', 'amount_to']
    .concat(['booking_id', 'customer_id'])
    .map((name) => `${TRANSACTIONS} $.${name}`),
  `${IMPORT} $ (items)`,
  ...['amount', 'currency', 'pay_date'].map((name) => `${IMPORT} $[].${name}`),
]);

/** Routes and the declared input schemas Elysia validates; path params are bounded by the 8 KiB URL. */
function declaredInputs() {
  return ctx.app.routes.flatMap((route) => {
    const hooks = route.hooks as Record<string, unknown>;
    return (['body', 'query', 'headers'] as const).flatMap((part) =>
      hooks[part] instanceof z.ZodType
        ? [{ route: `${route.method} ${route.path}`, part, schema: hooks[part] as z.ZodType }]
        : [],
    );
  });
}

describe('every input string and array is bounded', () => {
  test('the walker finds unbounded strings, arrays, records and open objects', () => {
    expect(unboundedPaths(z.strictObject({ a: z.string() }))).toEqual(['$.a']);
    expect(unboundedPaths(z.array(z.string().max(3)))).toEqual(['$ (items)']);
    expect(unboundedPaths(z.record(z.string(), z.int()))).toEqual(['$.* (record)']);
    expect(unboundedPaths(z.looseObject({ a: z.enum(['x']) }))).toEqual(['$.* (open)']);
    expect(unboundedPaths(z.string().regex(/^a+$/))).toEqual(['$']);
    const bounded = z.strictObject({
      a: z.string().max(3).optional(),
      b: z.array(z.int()).max(2),
      c: z.string().regex(/^\d{1,4}$/),
      d: z.string().trim().pipe(z.email().max(254)),
      e: z.enum(['x', 'y']).nullish(),
      f: z.record(z.string(), z.unknown()).refine((v) => JSON.stringify(v).length < 10),
    });
    expect(unboundedPaths(bounded)).toEqual([]);
  });

  test('every route: bodies, queries and headers declare their maximums', () => {
    const inputs = declaredInputs();
    expect(inputs.length).toBeGreaterThan(30);
    const unbounded = inputs.flatMap(({ route, part, schema }) =>
      unboundedPaths(schema).map((path) => `${route} ${part} ${path}`),
    );
    expect(unbounded.filter((place) => !ALLOWED.has(place))).toEqual([]);
  });

  test('PUT /content/static-pages/{slug} (parsed in its handler) is bounded too', () => {
    expect(unboundedPaths(StaticPageInput)).toEqual([]);
  });
});

describe('a 10 MB string field → 413', () => {
  const bodyRoutes = ctx.app.routes
    .filter((route) => (route.hooks as { body?: unknown }).body !== undefined)
    .map((route) => ({ method: route.method, path: route.path.replace(/:(\w+)/g, 'x') }))
    .concat([{ method: 'PUT', path: '/content/static-pages/x' }]);

  test('on every route that takes a body, before anything is parsed', async () => {
    expect(bodyRoutes.length).toBeGreaterThan(15);
    const raw = JSON.stringify({ ...propertyBody(), ownerId: 'x'.repeat(TEN_MB) });
    for (const { method, path } of bodyRoutes) {
      const res = await ctx.request(method, path, {
        raw,
        token: ctx.employee,
        headers: { 'content-type': 'application/json' },
      });
      expect([method, path, res.status]).toEqual([method, path, 413]);
      if (!path.startsWith('/api/v1')) expect(res.body).toEqual(problemOf(413));
    }
  });

  test('also when sent chunked, without a Content-Length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"ownerId":"'));
        if (sent >= TEN_MB) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await ctx.fetch(
      new Request('http://localhost/listings/properties', {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.employee}`, 'content-type': 'application/json' },
        body,
      }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(problemOf(413));
    // Reading stopped soon after the limit instead of buffering all 10 MB.
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });

  test('through the real server over a socket, where a body within the limit is read whole', async () => {
    const dir = (await import('../support/harness')).tempDir('listings-hostile-');
    const port = freePort();
    const server = await startServer(port, { DATABASE_PATH: join(dir, 'app.db'), JWT_SECRET });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/listings/properties`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...propertyBody(), ownerId: 'x'.repeat(TEN_MB) }),
      });
      expect(res.status).toBe(413);
      await res.arrayBuffer();
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      // A body within the limit, framed by its Content-Length, is read whole, UTF-8 intact.
      const token = await new TokenService(JWT_SECRET).issue('emp', 'employee', 600);
      const auth = { authorization: `Bearer ${token}` };
      const location = { ...propertyBody().location, addressLine1: 'Calle de Alcalá 12, 2º 🏠' };
      const created = await fetch(`http://127.0.0.1:${port}/listings/properties`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify(propertyBody({ location })),
      });
      expect(created.status).toBe(201);
      const path = created.headers.get('location')!;
      const read = await fetch(`http://127.0.0.1:${port}/listings${path}`, { headers: auth });
      expect((await read.json()).location.addressLine1).toBe('Calle de Alcalá 12, 2º 🏠');
    } finally {
      server.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('filter arrays hold at most 100 values', () => {
  const many = (n: number, make: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => make(i));
  // Short ids, so 300 of them stay within the 8 KiB URL limit (past it: 414).
  const uuid = (i: number) => `p${i}`;
  const list = (query: string) =>
    ctx.request('GET', `/listings/properties?${query}`, { token: ctx.employee });

  test('300 values → 400, in each of the four encodings', async () => {
    const ids = many(300, uuid);
    const encodings = [
      `ids=${ids.join(',')}`,
      ids.map((id) => `ids=${id}`).join('&'),
      ids.map((id) => `ids[]=${id}`).join('&'),
      ids.map((id, i) => `ids[${i}]=${id}`).join('&'),
    ];
    for (const query of encodings) {
      const res = await list(query);
      expect([query.slice(0, 8), res.status]).toEqual([query.slice(0, 8), 400]);
      expect(res.body).toEqual(badRequest(['ids', 'must have at most 100 values']));
    }
  });

  test('every array filter: 101 values → 400, 100 → 200', async () => {
    const cities = many(101, () => 'madrid');
    for (const [name, values] of [
      ['ids', many(101, uuid)],
      ['unitIds', many(101, uuid)],
      ['cityIds', cities],
    ] as const) {
      expect([name, (await list(`${name}=${values.join(',')}`)).status]).toEqual([name, 400]);
      const hundred = values.slice(0, 100).join(',');
      expect([name, (await list(`${name}=${hundred}`)).status]).toEqual([name, 200]);
    }
  });

  test('features: 21 criteria → 400; multi-listing ids: 300 → 400', async () => {
    const features = many(21, (i) => `features[${i}][name]=wifi`).join('&');
    expect((await list(features)).status).toBe(400);
    const res = await ctx.request(
      'GET',
      `/listings/multi-listing-units?ids=${many(300, uuid).join(',')}`,
      { token: ctx.employee },
    );
    expect(res.status).toBe(400);
  });

  test('more than 300 query parameters → 400; a query past 8 KiB → 414', async () => {
    expect((await list(many(301, () => 'type=studio').join('&'))).status).toBe(400);
    expect((await list(`address=${'a'.repeat(9000)}`)).status).toBe(414);
  });

  test('a filter value over 255 characters → 400', async () => {
    for (const query of [`ownerId=${'o'.repeat(256)}`, `address=${'a'.repeat(256)}`]) {
      expect((await list(query)).status).toBe(400);
    }
  });
});

describe('over-long fields answer the route’s validation error', () => {
  test('listings: 422 on create, 400 on the updates', async () => {
    const create = await ctx.request('POST', '/listings/properties', {
      body: propertyBody({ ownerId: 'o'.repeat(256) }),
      token: ctx.employee,
    });
    expect(create.status).toBe(422);
    expect(create.body).toMatchObject({
      validationMessages: { ownerId: { stringLengthTooLong: expect.any(String) } },
    });
    const id = await postProperty(ctx);
    for (const [path, body] of [
      ['/owner', { ownerId: 'o'.repeat(256) }],
      ['/neighbourhood', { neighbourhoodId: 'n'.repeat(65) }],
      ['/convert', { type: 'studio', reasonToUnpublishExtraInfo: 'r'.repeat(2001) }],
    ] as const) {
      const res = await ctx.request('PUT', `/listings/properties/${id}${path}`, {
        body,
        token: ctx.employee,
      });
      expect([path, res.status]).toEqual([path, 400]);
    }
    const units = await ctx.request('POST', `/listings/properties/${id}/units`, {
      body: {
        features: Array.from({ length: 51 }, () => ({
          applicability: 'a',
          category: 'c',
          name: 'n',
          value: 'v',
        })),
      },
      token: ctx.employee,
    });
    expect(units.status).toBe(400);
  });

  test('passkeys: an oversized credential id or transports list → 422, nothing stored', async () => {
    const accounts = await sqliteUnderTest.app();
    const session = await accounts.newUser();
    const valid = { clientDataJSON: 'e30', attestationObject: 'o2NmbXRkbm9uZQ' };
    const cases = [
      [{ id: 'A'.repeat(2000), response: valid }, { id: { stringLengthTooLong: MESSAGE } }],
      [
        { id: 'AAAA', response: { ...valid, transports: Array(11).fill('usb') } },
        { response: { transports: { tooManyItems: MESSAGE } } },
      ],
      [
        { id: 'AAAA', response: { ...valid, transports: ['u'.repeat(33)] } },
        { response: { transports: { 0: { stringLengthTooLong: MESSAGE } } } },
      ],
    ] as const;
    for (const [response, messages] of cases) {
      const res = await accounts.request('POST', '/auth/passkey/register', {
        body: {
          response: {
            rawId: response.id,
            type: 'public-key',
            clientExtensionResults: {},
            ...response,
          },
        },
        // A fresh browser session: a bearer token alone may not add a passkey.
        headers: { cookie: session.cookie, origin: ORIGIN },
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ validationMessages: { response: messages } });
    }
    const list = await accounts.request<{ passkeys: unknown[] }>('GET', '/auth/passkeys', {
      token: session.token,
    });
    expect(list.body.passkeys).toEqual([]);
  });
});

describe('SQL metacharacters are only ever data', () => {
  test('stored, searched and filtered literally; a crafted sort is 400', async () => {
    const evil = "Robert'); DROP TABLE properties;-- %_";
    const id = await postProperty(ctx, {
      ownerId: "owner' OR '1'='1",
      location: { ...propertyBody().location, addressLine1: evil },
    });
    const found = await ctx.request<{
      total: number;
      _embedded: { 'svc:properties': { id: string }[] };
    }>('GET', `/listings/properties?address=${encodeURIComponent('DROP TABLE properties;-- %_')}`, {
      token: ctx.employee,
    });
    expect(found.status).toBe(200);
    expect(found.body._embedded['svc:properties'].map((p) => p.id)).toEqual([id]);
    // `%` and `_` match themselves in `address`: only the property above holds them.
    const cases = [
      [`ownerId=${encodeURIComponent("x' OR '1'='1")}`, 0],
      ['address=%25', 1],
      ['address=_', 1],
    ] as const;
    for (const [query, total] of cases) {
      const res = await ctx.request<{ total: number }>('GET', `/listings/properties?${query}`, {
        token: ctx.employee,
      });
      expect([query, res.status, res.body.total]).toEqual([query, 200, total]);
    }
    const sort = await ctx.request('GET', '/listings/properties?sort=type;DROP%20TABLE%20units', {
      token: ctx.employee,
    });
    expect(sort.status).toBe(400);
    expect((await ctx.request('GET', `/listings/properties/${id}`)).status).toBe(200);
  });
});

describe('customer API inputs checked in their handlers', () => {
  test('over-long or over-sized list parameters → 422', async () => {
    const customer = await ctx.tokenFor('customer-9', 'customer');
    for (const query of [
      `booking_id=${'b'.repeat(300)}`,
      `page=${'9'.repeat(40)}`,
      `per_page=${'1'.repeat(40)}`,
      `amount_from=${'1'.repeat(40)}`,
      `pay_date_from=${'2'.repeat(300)}`,
    ]) {
      const res = await ctx.request('GET', `/api/v1/c/transactions?${query}`, { token: customer });
      expect([query.slice(0, 12), res.status]).toEqual([query.slice(0, 12), 422]);
    }
  });

  test('an import row with a huge amount, currency or date → 422, nothing stored', async () => {
    const row = {
      customer_id: 'customer-9',
      booking_id: 'B-1',
      amount: '10.00',
      currency: 'EUR',
      pay_date: '2026-01-02',
      status: 'paid',
    };
    for (const bad of [
      { amount: '1'.repeat(100_000) },
      { currency: 'EUR'.repeat(100_000) },
      { pay_date: '2026-01-02'.repeat(10_000) },
    ]) {
      const res = await ctx.request('POST', '/api/v1/admin/transactions', {
        body: [row, { ...row, ...bad }],
        token: ctx.employee,
      });
      expect([Object.keys(bad)[0], res.status]).toEqual([Object.keys(bad)[0], 422]);
    }
    const list = await ctx.request<{ pagination: { total: number } }>(
      'GET',
      '/api/v1/c/transactions?customer_id=customer-9',
      { token: ctx.employee },
    );
    expect(list.body.pagination.total).toBe(0);
  });
});
