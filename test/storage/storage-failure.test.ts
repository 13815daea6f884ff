import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { withBackstop } from '@/api/plugins/error-handler';
import { migratePostgres } from '@/db/pg/migrate';
import { storageFailureOf } from '@/db/storage-failure';
import { createLogger } from '@/logger';
import { propertyBody } from '../listings/support';
import { createTestApp, problemOf, tempDir } from '../support/harness';
import {
  createTestDatabase,
  POSTGRES_ADMIN_URL,
  pgSuite,
  postgresAvailable,
} from '../support/postgres';

const READ_ONLY_DETAIL =
  "Storage is read-only: the database's file system refuses writes, so the change was not stored and nothing of it was written; retry after Retry-After seconds";

/** The error a real statement raises, caught. */
async function errorOf(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('the statement did not fail');
}

describe('storageFailureOf: SQLite', () => {
  test('a database file opened read-only: read-only', async () => {
    const path = join(tempDir(), 'read-only.db');
    const writer = new Database(path, { create: true });
    writer.run('CREATE TABLE t (x)');
    writer.close();
    const reader = new Database(path, { readonly: true });
    const error = await errorOf(() => reader.run('INSERT INTO t VALUES (1)'));
    reader.close();
    expect((error as { code: string }).code).toBe('SQLITE_READONLY');
    expect(storageFailureOf(error)).toBe('read-only');
  });

  test('a constraint, a syntax error and a plain Error are not storage failures', async () => {
    const db = new Database(':memory:');
    db.run('CREATE TABLE t (x UNIQUE)');
    db.run('INSERT INTO t VALUES (1)');
    expect(storageFailureOf(await errorOf(() => db.run('INSERT INTO t VALUES (1)')))).toBe(
      undefined,
    );
    expect(storageFailureOf(await errorOf(() => db.run('INSERT INTO')))).toBe(undefined);
    expect(storageFailureOf(new Error('SQLITE_FULL'))).toBe(undefined);
    db.close();
  });
});

describe('a storage failure escaping the error handler', () => {
  test('is still its 507 in the family of the path, not a logged 500', async () => {
    const path = join(tempDir(), 'read-only.db');
    new Database(path, { create: true }).run('CREATE TABLE t (x)');
    const reader = new Database(path, { readonly: true });
    const refused = await errorOf(() => reader.run('INSERT INTO t VALUES (1)'));
    reader.close();
    const lines: string[] = [];
    const logger = createLogger('silent');
    logger.error = (message) => lines.push(message);
    const families = (url: string) => (url.startsWith('/api/v1') ? 'customer' : 'problem');
    const fetch = withBackstop(() => Promise.reject(refused), logger, families);
    const problem = await fetch(
      new Request('http://localhost/listings/properties', { method: 'POST' }),
    );
    expect(problem.status).toBe(507);
    expect(problem.headers.get('retry-after')).toBe('30');
    expect(problem.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await problem.json()).toEqual(problemOf(507, READ_ONLY_DETAIL));
    const customer = await fetch(
      new Request('http://localhost/api/v1/admin/plans', { method: 'POST' }),
    );
    expect(customer.status).toBe(507);
    expect(await customer.json()).toEqual({
      message: 'Insufficient Storage: the change was not stored; retry later.',
    });
    expect(lines).toEqual([]);
  });
});

describe.skipIf(!postgresAvailable)(pgSuite('storageFailureOf: PostgreSQL'), () => {
  const made: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const database of made) await database.drop();
  });

  test('25006 read_only_sql_transaction, raised by the server: read-only', async () => {
    const client = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
    const error = await errorOf(() =>
      client.begin(async (tx) => {
        await tx`SET TRANSACTION READ ONLY`;
        await tx`CREATE TABLE storage_failure_probe (x int)`;
      }),
    );
    await client.close();
    expect((error as { errno: string }).errno).toBe('25006');
    expect(storageFailureOf(error)).toBe('read-only');
  });

  test('53100 disk_full and 53000 insufficient_resources: full (the server error with its SQLSTATE changed)', async () => {
    // A PostgreSQL disk cannot be filled here: the server's real error is taken and given the SQLSTATE a full disk raises.
    const client = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
    const error = (await errorOf(() => client`SELECT 1/0`)) as Error & { errno: string };
    await client.close();
    expect(storageFailureOf(error)).toBe(undefined);
    for (const state of ['53100', '53000']) {
      Object.defineProperty(error, 'errno', { value: state, configurable: true });
      expect(storageFailureOf(error)).toBe('full');
      expect(storageFailureOf(new Error('wrapped', { cause: error }))).toBe('full');
    }
    // Too many connections is the server being unavailable (503), not storage.
    Object.defineProperty(error, 'errno', { value: '53300', configurable: true });
    expect(storageFailureOf(error)).toBe(undefined);
  });

  test('a database in read-only mode: every write 507 through the service, reads answered', async () => {
    const database = await createTestDatabase();
    made.push(database);
    await migratePostgres(database.url);
    const admin = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
    await admin.unsafe(`ALTER DATABASE ${database.name} SET default_transaction_read_only = on`);
    await admin.close();
    const ctx = createTestApp({ postgresUrl: database.url });
    const employee = await ctx.tokenFor('employee-1', 'employee');
    const created = await ctx.request('POST', '/listings/properties', {
      token: employee,
      body: propertyBody(),
    });
    expect(created.status).toBe(507);
    expect(created.headers.get('retry-after')).toBe('30');
    expect(created.body).toEqual(problemOf(507, READ_ONLY_DETAIL));
    const plan = await ctx.request('POST', '/api/v1/admin/plans', {
      token: employee,
      body: { name: 'Pro', slug: 'pro', limits: { minute: 500 } },
    });
    expect(plan.status).toBe(507);
    expect(plan.body).toEqual({
      message: 'Insufficient Storage: the change was not stored; retry later.',
    });
    const list = await ctx.request('GET', '/listings/properties', { token: employee });
    expect(list.status).toBe(200);
    const health = await ctx.request<{ detail: string }>('GET', '/health');
    expect(health.status).toBe(503);
    expect(health.body.detail).toBe(
      "Writes refused: the database's storage is read-only; free space or make it writable (docs/operations.md)",
    );
  });
});
