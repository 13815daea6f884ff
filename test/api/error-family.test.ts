import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { scopedGroup } from '@/api/error-family';
import { bodyRules } from '@/api/plugins/body-rules';
import { fail } from '@/kernel/errors';
import { createTestApp, problemOf } from '../support/harness';

type Operation = { responses: Record<string, { $ref?: string }> };
type Document = { paths: Record<string, Record<string, Operation>> };

/**
 * Groups that declare their error family where the path says nothing of it:
 * one mounted outside the customer API answering in its shape, one inside
 * the customer API's mount answering problem details.
 */
const ctx = createTestApp({
  extraRoutes: () =>
    new Elysia()
      .use(
        scopedGroup('partner-api', { family: 'customer', mount: '/partner' })
          .use(bodyRules)
          .get('/items/:id', () => {
            throw fail('property.not_found');
          })
          .post('/items', ({ body }) => body, {
            body: z.strictObject({ name: z.string().min(1) }),
            badBody: 'unprocessable',
          }),
      )
      .use(
        scopedGroup('v1-problems', { family: 'problem', mount: '/api/v1/problems' }).get(
          '/items/:id',
          () => {
            throw fail('property.not_found');
          },
        ),
      ),
});

const laravel = (status: number, message: string) => ({
  status,
  type: 'application/json',
  body: { message },
});
const problem = (status: number) => ({
  status,
  type: 'application/problem+json',
  body: problemOf(status),
});

async function answer(method: string, path: string, body?: unknown) {
  const res = await ctx.request(method, path, body === undefined ? {} : { body });
  return { status: res.status, type: res.headers.get('content-type'), body: res.body };
}

describe('happy: the error family is the route group declaration, not the path', () => {
  test('a group declaring the customer family outside /api/v1: routed and unrouted errors in its shape', async () => {
    expect(await answer('GET', '/partner/items/1')).toEqual(laravel(404, 'Not Found.'));
    expect(await answer('GET', '/partner/nothing-here')).toEqual(laravel(404, 'Not Found.'));
    expect(await answer('GET', '/partner')).toEqual(laravel(404, 'Not Found.'));
    expect(await answer('DELETE', '/partner/items/1')).toEqual(
      laravel(405, 'The method is not supported for this route.'),
    );
    const invalid = await answer('POST', '/partner/items', { name: '' });
    expect([invalid.status, invalid.type, Object.keys(invalid.body as object)]).toEqual([
      422,
      'application/json',
      ['message', 'errors'],
    ]);
  });

  test('a path only beginning like the mount is not in it', async () => {
    expect(await answer('GET', '/partnerx/items/1')).toEqual(problem(404));
  });

  test('a group declaring problem details inside /api/v1 answers them; the rest of /api/v1 stays Laravel', async () => {
    expect(await answer('GET', '/api/v1/problems/items/1')).toEqual(problem(404));
    expect(await answer('GET', '/api/v1/problems/unknown')).toEqual(problem(404));
    expect(await answer('GET', '/api/v1/unknown')).toEqual(laravel(404, 'Not Found.'));
  });

  test('the document reads the same declaration', async () => {
    const { paths } = (await ctx.request('GET', '/docs/json')).body as Document;
    const refs = (path: string) => paths[path]!.get!.responses;
    expect(refs('/partner/items/{id}')['500']?.$ref).toBe(
      '#/components/responses/ApiInternalServerError',
    );
    expect(refs('/api/v1/problems/items/{id}')['500']?.$ref).toBe(
      '#/components/responses/InternalServerError',
    );
    // The customer API's limiter is declared by its own group only.
    expect(refs('/partner/items/{id}')['429']).toBeUndefined();
    expect(refs('/api/v1/tokens/limits')['429']?.$ref).toBe(
      '#/components/responses/ApiTooManyRequests',
    );
  });
});
