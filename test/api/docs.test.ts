import { expect, test } from 'bun:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp } from '../support/harness';

const ctx = createTestApp();

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

test('every request body is described as application/json', async () => {
  const res = await ctx.request('GET', '/docs/json');
  const paths = (
    res.body as { paths: Record<string, Record<string, { requestBody?: { content: object } }>> }
  ).paths;
  const bodies = Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.requestBody)
      .map(([method, operation]) => [
        `${method} ${path}`,
        Object.keys(operation.requestBody!.content),
      ]),
  );
  expect(bodies.length).toBeGreaterThan(0);
  for (const [, types] of bodies) expect(types).toEqual(['application/json']);
});
