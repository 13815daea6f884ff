import { describe, expect, test } from 'bun:test';
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { PROBLEMS_ONLY } from '@/api/error-family';
import { errorHandler } from '@/api/plugins/error-handler';
import { createLogger } from '@/logger';
import { generate, Rng, type Schema } from '../support/fuzz/generate';
import { runFuzz } from '../support/fuzz/run';

/**
 * An app with one planted bug per check, documented the way feature routes
 * are (Elysia's own body parser: it documents bodies whatever the docs fix).
 */
function brokenApp() {
  const Item = z.object({
    name: z.string().min(1).max(20),
    count: z.number().int().min(1).max(10),
  });
  return new Elysia()
    .use(
      errorHandler({
        logger: createLogger('silent'),
        allowedMethods: () => [],
        errorFamilyOf: PROBLEMS_ONLY,
      }),
    )
    .use(openapi({ path: '/docs', specPath: '/docs/json', mapJsonSchema: { zod: z.toJSONSchema } }))
    .post(
      '/broken/items',
      ({ body }) => {
        if (body.count === 10) throw new Error('off by one');
        return body;
      },
      { body: Item, response: { 200: Item } },
    )
    .get(
      '/broken/report/:id',
      async ({ query }) => {
        if (query.mode === 'hang') await new Promise<never>(() => {});
        // A raw Response skips Elysia's own response check (as the static pages' cached bodies do).
        return new Response(JSON.stringify({ total: 'many' }), {
          headers: { 'content-type': 'application/json' },
        });
      },
      {
        params: z.object({ id: z.string() }),
        query: z.object({ mode: z.enum(['fast', 'hang']).optional() }),
        response: { 200: z.object({ total: z.number() }) },
      },
    )
    .get(
      '/broken/text',
      () => new Response('plain', { headers: { 'content-type': 'text/plain' } }),
      // Documented as JSON, answered as text.
      { response: { 200: z.object({ ok: z.boolean() }) } },
    )
    .get(
      '/broken/missing',
      () =>
        new Response(JSON.stringify({ error: 'nope' }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        }),
      {
        response: { 200: z.object({}) },
      },
    );
}

describe('the fuzzer finds what it looks for', () => {
  test('a 500, a hang, an off-schema body, a non-JSON body, a non-problem error and an undocumented status', async () => {
    const app = brokenApp();
    const report = await runFuzz({
      fetch: (request) => app.handle(request),
      // A fixed amount of work: every planted bug shows within 240 requests;
      // each batch that meets the hang waits out `timeoutMs`.
      requests: 240,
      seed: 7,
      credentials: [],
      forgedAuthorizations: ['Bearer a.b.c'],
      minPerOperation: 40,
      timeoutMs: 100,
      concurrency: 16,
    });
    const problems = report.findings.map((f) => `${f.route}: ${f.problems.join('; ')}`);
    const found = (route: string, text: string) =>
      problems.some((p) => p.startsWith(route) && p.includes(text));
    expect(found('POST /broken/items', 'server error 500')).toBe(true);
    expect(found('GET /broken/report/{id}', 'hang')).toBe(true);
    expect(
      found(
        'GET /broken/report/{id}',
        'body breaks the documented 200 schema: /total must be number',
      ),
    ).toBe(true);
    expect(found('GET /broken/text', 'body served as "text/plain"')).toBe(true);
    expect(
      found(
        'GET /broken/missing',
        'error served as application/json, not application/problem+json',
      ),
    ).toBe(true);
    // Strict (the default): a status or media type the document does not list is a finding.
    expect(found('GET /broken/missing', 'status 404 is not documented')).toBe(true);
    expect(report.routes.get('POST /broken/items')!.sent).toBeGreaterThanOrEqual(40);
  }, 120_000);
});

describe('generate', () => {
  const valid = (schema: z.ZodType, seed: number) => {
    const json = z.toJSONSchema(schema) as Schema;
    const rng = new Rng(seed);
    return Array.from(
      { length: 50 },
      () => schema.safeParse(generate(json, { rng })).success,
    ).every(Boolean);
  };

  test('values satisfy the schemas zod emits', () => {
    const Nested = z.strictObject({
      kind: z.enum(['apartment', 'studio']),
      fixed: z.literal('x'),
      count: z.number().int().min(1).max(30),
      ratio: z.number().gt(0).lt(1),
      name: z.string().min(3).max(5),
      when: z.iso.datetime(),
      day: z.iso.date(),
      email: z.email(),
      id: z.uuid(),
      tags: z.array(z.string()).min(1).max(4),
      either: z.union([z.number(), z.boolean()]),
      maybe: z.string().nullable().optional(),
      inner: z.object({ latitude: z.number().min(-90).max(90) }),
      free: z.record(z.string(), z.unknown()),
      language: z.string().regex(/^[a-z]{2}(?:-[A-Z]{2})?$/),
    });
    for (const seed of [1, 2, 3]) expect(valid(Nested, seed)).toBe(true);
  });

  test('recursive schemas ($defs and $ref) end', () => {
    type Tree = { name: string; children: Tree[] };
    const Tree: z.ZodType<Tree> = z.object({
      name: z.string(),
      children: z.lazy(() => z.array(Tree)),
    });
    expect(valid(Tree, 4)).toBe(true);
  });

  test('the same seed gives the same values', () => {
    const json = z.toJSONSchema(z.object({ a: z.string(), b: z.number() })) as Schema;
    expect(generate(json, { rng: new Rng(9) })).toEqual(generate(json, { rng: new Rng(9) }));
  });
});
