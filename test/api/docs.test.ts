import { describe, expect, test } from 'bun:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { z } from 'zod';
import { StaticPageInput } from '@/content/schemas';
import { createTestApp } from '../support/harness';

const ctx = createTestApp();

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Json[];
  requestBody?: { content: Record<string, { schema?: Json; example?: unknown }> };
  responses: Record<string, Json>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Json>>;
}

const document = async () => (await ctx.request<Document>('GET', '/docs/json')).body;
const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
/** The response of a status, with a shared answer's reference resolved. */
const answer = (doc: Document, response: Json | undefined) => {
  const ref = response?.$ref as string | undefined;
  return ref ? doc.components.responses![ref.split('/').pop()!]! : response;
};

test('GET /docs/json is a valid OpenAPI 3 document', async () => {
  const res = await ctx.request('GET', '/docs/json');
  expect(res.status).toBe(200);
  const doc = res.body as Document;
  expect(doc.openapi).toMatch(/^3\./);
  const result = await new Validator().validate(doc as unknown as Json);
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2).slice(0, 2000));
  expect(result.valid).toBe(true);
  expect(Object.keys(doc.paths)).toContain('/health');
});

test('GET /docs serves the reference UI', async () => {
  const res = await ctx.request('GET', '/docs', { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/html');
});

describe('every answer documented', () => {
  test('the document is the same on every request (mended once)', async () => {
    const first = JSON.stringify(await document());
    expect(JSON.stringify(await document())).toBe(first);
    const health = (await document()).paths['/health']!.get!;
    expect(health.parameters?.length).toBe(1);
  });

  test('operationIds read as method names, once each', async () => {
    const ids = operations(await document()).map(({ operation }) => operation.operationId);
    for (const id of ids) expect(String(id)).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('every request body is JSON with an example the route itself accepts', async () => {
    const doc = await document();
    const bodies = new Map<string, z.ZodType | undefined>(
      ctx.app.routes.map((route) => [
        `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
        route.hooks.body as z.ZodType | undefined,
      ]),
    );
    // This route reads its body itself (the slug decides 201 or 200 first).
    bodies.set('put /content/static-pages/{slug}', StaticPageInput);
    let checked = 0;
    for (const { path, method, operation } of operations(doc)) {
      if (!operation.requestBody) continue;
      expect([path, Object.keys(operation.requestBody.content)]).toEqual([
        path,
        ['application/json'],
      ]);
      const { example } = operation.requestBody.content['application/json']!;
      expect([path, method, example === undefined]).toEqual([path, method, false]);
      const schema = bodies.get(`${method} ${path}`);
      const parsed = schema?.safeParse(example);
      expect([path, method, parsed?.success ?? 'no schema']).toEqual([path, method, true]);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  test('errors are problem details outside /api/v1 and JSON inside, as sent', async () => {
    const doc = await document();
    for (const { path, operation } of operations(doc)) {
      const customer = path.startsWith('/api/v1/');
      for (const [status, declared] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || status === '431') continue;
        expect([path, status, typeof declared.$ref]).toEqual([path, status, 'string']);
        const types = Object.keys((answer(doc, declared)?.content as Json) ?? {});
        expect([path, status, types[0]]).toEqual([
          path,
          status,
          customer ? 'application/json' : 'application/problem+json',
        ]);
      }
      for (const status of ['400', '414', '431', '500'])
        expect(operation.responses).toHaveProperty(status);
    }
  });

  test('the refusals of the account operations: closed sign-up, per-address bounds, no capacity', async () => {
    const doc = await document();
    const statuses = (path: string) => Object.keys(doc.paths[path]!.post!.responses);
    expect(statuses('/auth/sign-up')).toEqual(expect.arrayContaining(['403', '429', '503']));
    expect(statuses('/auth/sign-in')).toEqual(expect.arrayContaining(['429', '503']));
    expect(statuses('/admin/users')).toContain('503');
    for (const path of ['/auth/passkey/register/options', '/auth/passkey/authenticate/options'])
      expect(statuses(path)).toContain('429');
    for (const path of ['/auth/passkey/register', '/auth/passkey/authenticate'])
      expect(statuses(path)).toContain('503');
  });

  test('the headers clients rely on: Location, ETag, Idempotency-Key, rate limits, X-Request-Id', async () => {
    const doc = await document();
    const headersOf = (path: string, method: string, status: string) =>
      Object.keys(answer(doc, doc.paths[path]![method]!.responses[status])?.headers ?? {});
    expect(headersOf('/listings/properties', 'post', '201')).toContain('Location');
    expect(headersOf('/listings/properties/{id}', 'get', '200')).toContain('ETag');
    expect(headersOf('/content/static-pages/{slug}', 'get', '304')).toContain('ETag');
    expect(headersOf('/api/v1/tokens/limits', 'get', '200')).toEqual(
      expect.arrayContaining([
        'RateLimit',
        'RateLimit-Policy',
        'X-RateLimit-Remaining',
        'X-Request-Id',
      ]),
    );
    expect(headersOf('/api/v1/tokens/limits', 'get', '429')).toContain('Retry-After');
    expect(headersOf('/auth/sign-in', 'post', '200')).toContain('Set-Cookie');
    const idempotent = operations(doc)
      .filter(({ operation }) =>
        operation.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey'),
      )
      .map(({ operation }) => operation.operationId);
    expect(idempotent).toEqual(
      expect.arrayContaining([
        'createProperty',
        'createPublicProperty',
        'createUnit',
        'createPlan',
      ]),
    );
  });

  test('who may call: bearer or session, employees named, public operations say so', async () => {
    const doc = await document();
    const security = (path: string, method: string) => doc.paths[path]![method]!.security;
    expect(security('/listings/properties', 'get')).toEqual([{ bearer: [] }, { session: [] }]);
    expect(security('/admin/jobs', 'get')).toEqual([
      { bearer: ['employee'] },
      { session: ['employee'] },
    ]);
    expect(security('/listings/properties/{id}', 'get')).toEqual([
      {},
      { bearer: [] },
      { session: [] },
    ]);
    expect(security('/health', 'get')).toEqual([]);
  });
});
