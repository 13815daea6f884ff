import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { PROBLEMS_ONLY } from '@/api/error-family';
import { bodyRules } from '@/api/plugins/body-rules';
import { errorHandler, withBackstop } from '@/api/plugins/error-handler';
import { bodyRoutesOf } from '@/api/plugins/json-body';
import { createLogger } from '@/logger';
import { badRequest, createTestApp, problemOf } from '../support/harness';

const Probe = z.strictObject({
  name: z.string().min(1).max(5),
  location: z.strictObject({
    latitude: z.number().min(-90, 'not between').max(90, 'not between'),
    cityId: z.enum(['madrid', 'paris']),
  }),
});

function probeContext() {
  return createTestApp({
    extraRoutes: () =>
      new Elysia()
        .use(bodyRules)
        .post('/listings/probe', ({ body }) => body, { body: Probe })
        .post('/listings/probe-422', ({ body }) => body, { body: Probe, badBody: 'unprocessable' })
        .post('/listings/probe-no-body', () => ({ read: 'nothing' }), { badBody: 'unprocessable' })
        .post('/api/v1/probe', ({ body }) => body, { body: Probe, badBody: 'unprocessable' })
        .get('/listings/probe/:id', ({ params }) => params, {
          params: z.object({ id: z.string().regex(/^\d{1,9}$/, 'must be digits') }),
          query: z.strictObject({ colour: z.enum(['red', 'blue']).optional() }),
        })
        .get('/listings/boom', () => {
          throw new Error('secret internals /etc/passwd');
        })
        .get('/api/v1/boom', () => {
          throw new Error('secret internals');
        }),
  });
}

const valid = { name: 'abc', location: { latitude: 1, cityId: 'madrid' } };

describe('error model (problem bodies; Laravel bodies under /api/v1)', () => {
  const ctx = probeContext();

  test('unknown route → 404 problem', async () => {
    const res = await ctx.request('GET', '/listings/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(problemOf(404));
  });

  test('known path, wrong method → 405 with Allow', async () => {
    const res = await ctx.request('DELETE', '/health');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Method Not Allowed',
      status: 405,
      detail: 'The request method is not allowed for this resource',
    });
  });

  test('malformed JSON → 400 with the fixed problem body, naming the body', async () => {
    const res = await ctx.request('POST', '/listings/probe', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Bad Request',
      status: 400,
      detail: 'The request could not be understood by the server due to malformed syntax',
      invalidParams: [{ name: 'body', reason: 'is not valid JSON' }],
    });
  });

  test.each([['[]'], ['null'], ['3'], ['"text"']])(
    'JSON %s that is not an object → 400',
    async (raw) => {
      const res = await ctx.request('POST', '/listings/probe-422', {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(badRequest(['body', 'must be an object']));
    },
  );

  test('non-JSON media type → 415', async () => {
    const res = await ctx.request('POST', '/listings/probe', {
      raw: 'name=abc',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Unsupported Media Type',
      status: 415,
      detail: 'The request body must be JSON (Content-Type: application/json)',
    });
  });

  test('body over 1 MiB → 413', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    const res = await ctx.request('POST', '/listings/probe', {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Request Entity Too Large',
      status: 413,
      detail: 'The request body is larger than the limit of 1 MiB',
    });
  });

  test('JSON nested deeper than 32 levels → 400', async () => {
    const raw = `${'['.repeat(40)}${']'.repeat(40)}`;
    const res = await ctx.request('POST', '/listings/probe', {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest(['body', 'nests deeper than 32 levels']));
  });

  test('body failing validation on a route without 422 → 400', async () => {
    const res = await ctx.request('POST', '/listings/probe', { body: { name: 7 } });
    expect(res.status).toBe(400);
    // Every failed field, dotted; a body's values are never echoed.
    expect(res.body).toEqual(badRequest(['name', 'must be a string'], ['location', 'is required']));
  });

  test('a NUL in a body: refused where the route declares a body, ignored where it declares none', async () => {
    const nul = { raw: '[null,"\\u0000",null]', headers: { 'content-type': 'application/json' } };
    const ignored = await ctx.request('POST', '/listings/probe-no-body', nul);
    expect([ignored.status, ignored.body]).toEqual([200, { read: 'nothing' }]);
    // The sign-out route reads no body either: the answer of a request without one.
    const signOut = await ctx.request('POST', '/auth/sign-out', nul);
    expect([signOut.status, signOut.text]).toEqual([204, '']);
    const refused = await ctx.request('POST', '/listings/probe-422', {
      body: { ...valid, name: 'a\u0000' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      ...problemOf(422),
      validationMessages: {
        name: { noNul: 'The field must not contain the NUL character (U+0000).' },
      },
    });
  });

  test('a route that declares no body ignores one of another type, bad JSON or over 1 MiB', async () => {
    const sent = [
      { raw: 'plain words', headers: { 'content-type': 'text/plain' } },
      { raw: '{"unfinished', headers: { 'content-type': 'application/json' } },
      { raw: `"${'x'.repeat(1024 * 1024)}"`, headers: { 'content-type': 'application/json' } },
    ];
    for (const body of sent) {
      const ignored = await ctx.request('POST', '/listings/probe-no-body', body);
      expect([ignored.status, ignored.body]).toEqual([200, { read: 'nothing' }]);
      const signOut = await ctx.request('POST', '/auth/sign-out', body);
      expect([signOut.status, signOut.text]).toEqual([204, '']);
    }
    // The same bodies still refused where a body is declared.
    const refused = await ctx.request('POST', '/listings/probe', sent[0]);
    expect(refused.status).toBe(415);
  });

  test('the routes refusing a NUL in a body are exactly the operations documented with one', async () => {
    const plain = createTestApp();
    const document = (await plain.request('GET', '/docs/json')).body as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const readsBody = bodyRoutesOf(plain.app.routes);
    const mismatched: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const route = path.replace(/\{(\w+)\}/g, ':$1');
        if (readsBody(method.toUpperCase(), route) !== (operation.requestBody !== undefined)) {
          mismatched.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(mismatched).toEqual([]);
  });

  test('a bad path parameter → 400 naming it, with the value received', async () => {
    const res = await ctx.request('GET', '/listings/probe/abc');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest(['id', 'must be digits (got "abc")']));
  });

  test('a path parameter that does not decode → 400 saying so', async () => {
    const res = await ctx.request('GET', '/listings/probe/%ZZ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest(['id', 'must be valid percent-encoded UTF-8']));
  });

  test('a query checked by the route → 400 naming each bad parameter', async () => {
    const res = await ctx.request('GET', '/listings/probe/7?colour=green&size=9');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      badRequest(
        ['colour', 'must be red or blue (got "green")'],
        ['size', 'is not a parameter of this operation'],
      ),
    );
  });

  test('a body of many unknown fields names the first 20', async () => {
    const body = {
      ...valid,
      ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, i])),
    };
    const res = await ctx.request('POST', '/listings/probe', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      badRequest(
        ...Array.from({ length: 20 }, (_, i): [string, string] => [
          `f${i}`,
          'is not a field of this body',
        ]),
      ),
    );
  });

  test('under /api/v1 a 400 keeps the Laravel body, with no invalidParams', async () => {
    const res = await ctx.request('POST', '/api/v1/probe', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'The request could not be understood by the server due to malformed syntax.',
    });
  });

  test('body failing validation on a 422 route → nested validationMessages', async () => {
    const res = await ctx.request('POST', '/listings/probe-422', {
      body: {
        name: 'toolongname',
        location: { latitude: 90.0001, cityId: 'nowhere' },
        country: 'ES',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Unprocessable Entity',
      status: 422,
      detail: 'The request was well formed but was unable to be followed due to semantic errors',
      validationMessages: {
        name: { stringLengthTooLong: 'The input is more than 5 characters long' },
        location: {
          latitude: { notBetween: 'not between' },
          cityId: { notInArray: 'The input was not found in the haystack; allowed: madrid, paris' },
        },
        country: { notAllowed: 'The field is not allowed' },
      },
    });
  });

  test('a missing object is reported under its own name', async () => {
    const res = await ctx.request('POST', '/listings/probe-422', { body: { name: 'a' } });
    expect(res.status).toBe(422);
    expect((res.body as { validationMessages: unknown }).validationMessages).toEqual({
      location: { isEmpty: "Value is required and can't be empty" },
    });
  });

  test('valid body passes', async () => {
    const res = await ctx.request('POST', '/listings/probe', { body: valid });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(valid);
  });

  test('unexpected failure → 500 with nothing internal', async () => {
    const res = await ctx.request('GET', '/listings/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Internal Server Error',
      status: 500,
      detail: 'Internal Server Error',
    });
    expect(res.text).not.toContain('secret');
  });

  test('a handler answering off its own response schema → logged 500, not a 400', async () => {
    // Found by the fuzzer: Elysia's response validation used to map to 400.
    const lines: string[] = [];
    const logger = createLogger('silent');
    logger.error = (message, fields) => lines.push(JSON.stringify({ message, ...fields }));
    const app = new Elysia()
      .use(errorHandler({ logger, allowedMethods: () => [], errorFamilyOf: PROBLEMS_ONLY }))
      .get('/listings/off-schema', () => ({ count: '$argon2id$v=19$leaked' }) as never, {
        response: { 200: z.object({ count: z.number() }) },
      });
    const res = await app.handle(new Request('http://localhost/listings/off-schema'));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual(problemOf(500));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('the response does not match its schema at count');
    expect(lines[0]).not.toContain('argon2id');
  });

  test('unknown keys named like Object.prototype members are fields like any other', async () => {
    // Found by the fuzzer: `constructor` crashed the error handler itself.
    const raw = JSON.stringify({ ...valid, constructor: 1, toString: [] }).replace(
      /^\{/,
      '{"__proto__":{"polluted":true},',
    );
    const headers = { 'content-type': 'application/json' };
    const listings = await ctx.request('POST', '/listings/probe-422', { raw, headers });
    expect(listings.status).toBe(422);
    const messages = (listings.body as { validationMessages: Record<string, unknown> })
      .validationMessages;
    expect(Object.keys(messages)).toEqual(['__proto__', 'constructor', 'toString']);
    for (const key of Object.keys(messages)) {
      expect(Object.getOwnPropertyDescriptor(messages, key)?.value).toEqual({
        notAllowed: 'The field is not allowed',
      });
    }
    const customer = await ctx.request('POST', '/api/v1/probe', { raw, headers });
    expect(customer.status).toBe(422);
    expect(Object.keys((customer.body as { errors: object }).errors)).toEqual([
      '__proto__',
      'constructor',
      'toString',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a failure escaping the error handler is still the logged 500 problem', async () => {
    const lines: string[] = [];
    const logger = createLogger('silent');
    logger.error = (message, fields) => lines.push(JSON.stringify({ message, ...fields }));
    const fetch = withBackstop(
      () => Promise.reject(new TypeError('internal detail')),
      logger,
      PROBLEMS_ONLY,
    );
    const res = await fetch(new Request('http://localhost/listings/anything'));
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(problemOf(500));
    expect(text).not.toContain('internal detail');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('TypeError: internal detail');
  });

  describe('customer API bodies are Laravel-style', () => {
    test('422 {message, errors}', async () => {
      const res = await ctx.request('POST', '/api/v1/probe', {
        body: { name: '', location: { latitude: 1, cityId: 'madrid' } },
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: "Value is required and can't be empty",
        errors: { name: ["Value is required and can't be empty"] },
      });
    });

    test('404 and 500', async () => {
      expect((await ctx.request('GET', '/api/v1/nothing')).body).toEqual({ message: 'Not Found.' });
      const boom = await ctx.request('GET', '/api/v1/boom');
      expect(boom.status).toBe(500);
      expect(boom.body).toEqual({ message: 'Server Error' });
    });
  });
});

describe('request context', () => {
  const ctx = createTestApp();

  test('X-Request-Id is created, or echoed when sane', async () => {
    const created = await ctx.request('GET', '/health');
    expect(created.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await ctx.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const refused = await ctx.request('GET', '/health', { headers: { 'x-request-id': 'a b<c>' } });
    expect(refused.headers.get('x-request-id')).not.toBe('a b<c>');
  });

  test('security headers on success and error responses', async () => {
    for (const path of ['/health', '/nowhere']) {
      const res = await ctx.request('GET', path);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  test('no CORS headers unless configured', async () => {
    const res = await ctx.request('GET', '/health', { headers: { origin: 'https://evil.test' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const cors = createTestApp({ env: { CORS_ORIGINS: 'https://app.test' } });
    const allowed = await cors.request('GET', '/health', {
      headers: { origin: 'https://app.test' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.test');
  });

  test('GET /health answers once the database does', async () => {
    const res = await ctx.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: 'ok' });
    await ctx.closeDatabase();
    const down = await ctx.request('GET', '/health');
    expect(down.status).toBe(503);
  });
});

describe('bounded URLs', () => {
  const ctx = createTestApp();
  test('a query string past 8 KiB → 414 problem', async () => {
    const res = await ctx.request('GET', `/listings/properties?address=${'a'.repeat(9000)}`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({
      type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
      title: 'Request-URI Too Long',
      status: 414,
      detail: 'The request URI is longer than 8 KiB',
    });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
