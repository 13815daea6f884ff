import { describe, expect, test } from 'bun:test';
import { LARAVEL_MESSAGES } from '@/api/problem';
import { badRequest, createTestApp, problemOf } from '../support/harness';
import { poolOn } from '../support/postgres-mode';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  requestBody?: unknown;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
}

const BROKEN = '{"name": ';

/** The body of a status in the shape the path answers in (docs/errors.md). */
const bodyOf = (path: string, status: number) =>
  path.startsWith('/api/v1') ? { message: LARAVEL_MESSAGES[status] } : problemOf(status);

/** Rows in every table, on either database: a refused request must leave them as they were. */
async function rowCounts(ctx: ReturnType<typeof createTestApp>): Promise<Record<string, number>> {
  if (ctx.postgresUrl) {
    const sql = poolOn(ctx.postgresUrl);
    const tables = (await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`) as {
      tablename: string;
    }[];
    const counts: Record<string, number> = {};
    for (const { tablename } of tables) {
      const [row] = (await sql.unsafe(`SELECT count(*)::int AS n FROM "${tablename}"`)) as {
        n: number;
      }[];
      counts[tablename] = row!.n;
    }
    return counts;
  }
  const client = ctx.db.$client;
  const tables = client
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all();
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      client.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get()!.n,
    ]),
  );
}

/** Every write of the document that needs a credential (no anonymous `{}` requirement). */
async function writesNeedingCredentials(ctx: ReturnType<typeof createTestApp>) {
  const document = (await ctx.request<OpenApi>('GET', '/docs/json')).body;
  const writes: { method: string; path: string; takesBody: boolean }[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'get' || method === 'head') continue;
      const security = operation.security ?? [];
      if (security.length === 0 || security.some((r) => Object.keys(r).length === 0)) continue;
      expect([template, method, operation.responses['401']]).toEqual([
        template,
        method,
        expect.anything(),
      ]);
      writes.push({
        method: method.toUpperCase(),
        path: template.replace(/\{[^}]+\}/g, '1'),
        takesBody: operation.requestBody !== undefined,
      });
    }
  }
  return writes;
}

describe('credentials are checked before a body is read', () => {
  test('every write that needs a credential answers 401 to an anonymous broken body', async () => {
    const ctx = createTestApp();
    const writes = await writesNeedingCredentials(ctx);
    // The listings, account, webhook, page, admin and customer-API writes.
    expect(writes.length).toBeGreaterThan(30);
    const before = await rowCounts(ctx);
    const answered: string[] = [];
    for (const { method, path } of writes) {
      const res = await ctx.request(method, path, {
        raw: BROKEN,
        headers: { 'content-type': 'application/json' },
      });
      answered.push(`${method} ${path} ${res.status}`);
      expect(res.body).toEqual(bodyOf(path, 401));
    }
    expect(answered).toEqual(writes.map(({ method, path }) => `${method} ${path} 401`));
    expect(await rowCounts(ctx)).toEqual(before);
  });

  test('an anonymous body of another media type or over the size limit is not read either', async () => {
    const ctx = createTestApp();
    const before = await rowCounts(ctx);
    const foreign = await ctx.request('POST', '/listings/properties', {
      raw: '<xml/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect([foreign.status, foreign.body]).toEqual([401, problemOf(401)]);
    const oversized = await ctx.request('POST', '/listings/properties', {
      raw: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect([oversized.status, oversized.body]).toEqual([401, problemOf(401)]);
    expect(await rowCounts(ctx)).toEqual(before);
  });

  test('a customer on an employee write gets its 403 before the body is read', async () => {
    const ctx = createTestApp();
    const customer = await ctx.tokenFor('customer-1');
    const res = await ctx.request('POST', '/admin/jobs/x/run', { raw: BROKEN, token: customer });
    expect([res.status, res.body]).toEqual([403, problemOf(403)]);
  });

  test('with a valid credential the same broken bodies still answer 400 where a body is taken', async () => {
    const ctx = createTestApp();
    const writes = (await writesNeedingCredentials(ctx)).filter((w) => w.takesBody);
    const employee = await ctx.tokenFor('employee-1', 'employee');
    const before = await rowCounts(ctx);
    const answered: string[] = [];
    for (const { method, path } of writes) {
      const res = await ctx.request(method, path, {
        raw: BROKEN,
        token: employee,
        headers: { 'content-type': 'application/json' },
      });
      answered.push(`${method} ${path} ${res.status}`);
      expect(res.body).toEqual(
        path.startsWith('/api/v1') ? bodyOf(path, 400) : badRequest(['body', 'is not valid JSON']),
      );
    }
    expect(answered).toEqual(writes.map(({ method, path }) => `${method} ${path} 400`));
    expect(await rowCounts(ctx)).toEqual(before);
  });

  test('with a valid credential a write that takes no body answers a broken one as if none was sent', async () => {
    const ctx = createTestApp();
    const writes = (await writesNeedingCredentials(ctx)).filter((w) => !w.takesBody);
    // Sign-out, the unarchive and rotate-secret actions, the job runs, …
    expect(writes.length).toBeGreaterThan(3);
    // A token of its own for each request: signing out revokes the one it is sent with.
    const employee = () => ctx.tokenFor('employee-1', 'employee');
    for (const { method, path } of writes) {
      const broken = await ctx.request(method, path, {
        raw: BROKEN,
        token: await employee(),
        headers: { 'content-type': 'application/json' },
      });
      const none = await ctx.request(method, path, { token: await employee() });
      // A job's run answers its own figures each time: the refusals must match exactly.
      const answerOf = (res: typeof none) => [
        method,
        path,
        res.status,
        res.status >= 400 ? res.body : 'done',
      ];
      expect(answerOf(broken)).toEqual(answerOf(none));
    }
  });
});
