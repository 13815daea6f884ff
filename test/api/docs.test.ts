import { expect, test } from 'bun:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { setup } from '../support/harness';

const ctx = setup();

test('GET /docs/json is a valid OpenAPI 3 document', async () => {
  const res = await ctx.request('GET', '/docs/json');
  expect(res.status).toBe(200);
  const document = res.body as { openapi: string; paths: Record<string, unknown> };
  expect(document.openapi).toMatch(/^3\./);
  const result = await new Validator().validate(document as unknown as Record<string, unknown>);
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2).slice(0, 2000));
  expect(result.valid).toBe(true);
  expect(Object.keys(document.paths)).toContain('/health');
});

test('GET /docs serves the reference UI', async () => {
  const res = await ctx.request('GET', '/docs', { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/html');
});

test('a route body is documented as application/json (the JSON parser hides it otherwise)', async () => {
  const ctx = setup();
  ctx.app.use(
    new Elysia().post('/listings/docs-probe', ({ body }) => body, {
      body: z.object({ name: z.string() }),
    }),
  );
  const res = await ctx.request('GET', '/docs/json');
  const document = res.body as {
    paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
  };
  const content = document.paths['/listings/docs-probe']!.post.requestBody.content;
  expect(Object.keys(content)).toEqual(['application/json']);
  expect(content['application/json']).toMatchObject({
    schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
});
