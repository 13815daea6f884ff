import { expect, test } from 'bun:test';
import { createTestApp } from '../support/harness';

type Operation = { responses: Record<string, { $ref?: string }> };

test('the OpenAPI document lists 507 on every write, in its family, and on no read', async () => {
  const ctx = createTestApp();
  const doc = await ctx.request<{ paths: Record<string, Record<string, Operation>> }>(
    'GET',
    '/docs/json',
  );
  const writes: string[] = [];
  for (const [path, operations] of Object.entries(doc.body.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const answer = operation.responses?.['507']?.$ref;
      if (['get', 'head'].includes(method)) {
        expect(answer, `${method} ${path}`).toBeUndefined();
        continue;
      }
      if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
      writes.push(`${method} ${path}`);
      const family = path.startsWith('/api/v1') ? 'ApiInsufficientStorage' : 'InsufficientStorage';
      expect(answer, `${method} ${path}`).toBe(`#/components/responses/${family}`);
    }
  }
  expect(writes).toContain('post /listings/properties');
  expect(writes).toContain('post /api/v1/admin/plans');
});
