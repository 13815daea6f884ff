import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SQL } from 'bun';
import { createService } from '@/app';
import { parseConfig } from '@/config';
import { postgresCustomerStore } from '@/customer/postgres-store';
import { isPostgresUnavailable, openPostgres, postgresProblem } from '@/db/pg/connection';
import { postgresHealth } from '@/db/pg/health';
import { migratePostgres } from '@/db/pg/migrate';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import { CREATE_BODY } from '../../bench/fixtures';
import { BASE, createTestApp, problemOf, tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';
import { tcpProxy } from '../support/tcp-proxy';

const PLANS = '/api/v1/admin/plans';
const IMPORT = '/api/v1/admin/transactions';

const importRow = (n: number) => ({
  customer_id: 'customer-outage',
  booking_id: `BK-${n}`,
  amount: '10.50',
  currency: 'EUR',
  pay_date: '2026-05-01',
  status: 'paid',
});

/** The database's URL, reached through `port` instead of PostgreSQL's own. */
function through(url: string, port: number): string {
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(port);
  return relayed.toString();
}

describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL goes away mid-run'), () => {
  let database: TestDatabase;
  /** A connection straight to PostgreSQL, to see what the service wrote. */
  let direct: SQL;
  const clients: SQL[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await migratePostgres(database.url);
    direct = openPostgres(database.url, { max: 2 });
    clients.push(direct);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close({ timeout: 0 })));
    await database.drop();
  }, 30_000);

  function setup() {
    const { hostname, port } = new URL(database.url);
    const proxy = tcpProxy({ host: hostname, port: Number(port) });
    const pool = openPostgres(through(database.url, proxy.port), { max: 2 });
    clients.push(pool);
    const ctx = createTestApp({ stores: { customer: postgresCustomerStore(pool) } });
    return { proxy, pool, ctx };
  }

  test('reads and writes answer 503 with Retry-After and write nothing; all recovers without a restart', async () => {
    const { proxy, pool, ctx } = setup();
    try {
      const admin = await ctx.tokenFor('admin', 'employee');
      const customer = await ctx.tokenFor('customer-outage');
      const as = (method: string, path: string, body?: unknown) =>
        ctx.request(method, path, { token: admin, body });
      expect((await as('POST', PLANS, { name: 'Gold', slug: 'gold' })).status).toBe(201);
      expect(await postgresHealth(pool).isHealthy()).toBe(true);

      proxy.cut();
      expect(await postgresHealth(pool).isHealthy()).toBe(false);
      for (const refused of [
        await as('POST', PLANS, { name: 'Silver', slug: 'silver' }),
        await as('POST', IMPORT, [importRow(1)]),
        await as('GET', PLANS),
        await ctx.request('GET', '/api/v1/c/transactions', { token: customer }),
      ]) {
        expect(refused.status).toBe(503);
        // The customer API's error body (docs/errors.md).
        expect(refused.body).toEqual({ message: 'Service Unavailable' });
        expect(refused.headers.get('retry-after')).toBe('5');
      }
      const plans = await direct`SELECT slug FROM plans ORDER BY id`;
      expect(plans.map((row: { slug: string }) => row.slug)).toEqual(['gold']);

      proxy.restore();
      expect((await as('POST', PLANS, { name: 'Silver', slug: 'silver' })).status).toBe(201);
      const page = await ctx.request('GET', '/api/v1/c/transactions', { token: customer });
      expect(page.status).toBe(200);
    } finally {
      proxy.close();
    }
  });

  test('an import cut off inside its transaction stores none of its rows', async () => {
    const { proxy, ctx } = setup();
    try {
      const admin = await ctx.tokenFor('admin', 'employee');
      // Holds the import at its first INSERT, inside its transaction, until released.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const lockHeld = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const blocker = direct.begin(async (tx) => {
        await tx`LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE`;
        locked();
        await released;
      });
      await lockHeld;
      const rows = Array.from({ length: 1200 }, (_, n) => importRow(n));
      const importing = ctx.request('POST', IMPORT, { token: admin, body: rows });
      // The import's transaction is waiting on the lock once PostgreSQL says so.
      let waiting = 0;
      for (let i = 0; i < 100 && waiting === 0; i++) {
        await Bun.sleep(20);
        [{ n: waiting }] = await direct`
          SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'transactions'::regclass`;
      }
      expect(waiting).toBe(1);
      proxy.cut();
      release();
      await blocker;
      const answer = await importing;
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      // The server ends the cut-off session's transaction without a COMMIT.
      for (let i = 0; i < 100; i++) {
        const [open] = await direct`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'listings-service'
            AND state LIKE 'idle in transaction%'`;
        if (open.n === 0) break;
        await Bun.sleep(20);
      }
      const [stored] = await direct`SELECT count(*)::int AS n FROM transactions`;
      expect(stored.n).toBe(0);
    } finally {
      proxy.close();
    }
  });
});

describe.skipIf(!postgresAvailable)(pgSuite('the whole service on PostgreSQL goes away'), () => {
  test('/health names it, a create answers 503 and stores nothing, all recovers without a restart', async () => {
    const database = await createTestDatabase();
    await migratePostgres(database.url);
    const direct = openPostgres(database.url, { max: 1 });
    const { hostname, port } = new URL(database.url);
    const proxy = tcpProxy({ host: hostname, port: Number(port) });
    const pool = openPostgres(through(database.url, proxy.port), { max: 2 });
    try {
      const config = parseConfig({
        DATABASE_PATH: `${tempDir()}/unused.db`,
        DATABASE_URL: database.url,
        JWT_SECRET: 'a-test-secret-of-the-whole-service-0123456789',
        WORKERS: 'off',
        LOG_LEVEL: 'silent',
      });
      const deps = buildDeps({ config, postgres: pool, logger: createLogger('silent') });
      const { fetch } = createService(deps);
      const token = await deps.tokens.issue('admin', 'employee', 3600);
      const call = async (method: string, path: string, body?: unknown) => {
        const headers = new Headers({
          accept: 'application/json',
          authorization: `Bearer ${token}`,
        });
        if (body !== undefined) headers.set('content-type', 'application/json');
        const response = await fetch(
          new Request(`${BASE}${path}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
        const text = await response.text();
        return {
          status: response.status,
          headers: response.headers,
          body: text ? JSON.parse(text) : undefined,
        };
      };
      const health = await call('GET', '/health');
      expect([health.status, health.body.backends]).toEqual([200, { postgresql: 'ok' }]);
      expect((await call('POST', '/listings/properties', CREATE_BODY)).status).toBe(201);

      proxy.cut();
      const down = await call('GET', '/health');
      expect(down.status).toBe(503);
      expect(down.body).toEqual(problemOf(503, 'Backend unavailable: postgresql'));
      const refused = await call('POST', '/listings/properties', CREATE_BODY);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect((await call('GET', '/listings/properties')).status).toBe(503);
      const [stored] = await direct`SELECT count(*)::int AS n FROM properties`;
      expect(stored.n).toBe(1);

      proxy.restore();
      expect((await call('GET', '/health')).status).toBe(200);
      expect((await call('POST', '/listings/properties', CREATE_BODY)).status).toBe(201);
      const list = await call('GET', '/listings/properties');
      expect(list.body.total).toBe(2);
    } finally {
      proxy.close();
      await pool.close({ timeout: 0 });
      await direct.close({ timeout: 0 });
      await database.drop();
    }
  });
});

describe.skipIf(!postgresAvailable)(pgSuite('PostgreSQL errors told apart'), () => {
  test('a refused or dropped connection is "unavailable"; a statement PostgreSQL refuses is not', async () => {
    const nobody = openPostgres('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    const refused = await nobody`SELECT 1`.catch((error: unknown) => error);
    expect(isPostgresUnavailable(refused)).toBe(true);
    await nobody.close({ timeout: 0 });

    const { hostname, port } = new URL('postgres://postgres@127.0.0.1:5432/test');
    const proxy = tcpProxy({ host: hostname, port: Number(port) });
    const pool = openPostgres(`postgres://postgres@127.0.0.1:${proxy.port}/test`, { max: 1 });
    try {
      const sleeping = pool`SELECT pg_sleep(5)`.catch((error: unknown) => error);
      await Bun.sleep(200);
      proxy.cut();
      expect(isPostgresUnavailable(await sleeping)).toBe(true);
      proxy.restore();
      const wrong = await pool`SELECT 1/0`.catch((error: unknown) => error);
      expect(wrong).toBeInstanceOf(Error);
      expect(isPostgresUnavailable(wrong)).toBe(false);
    } finally {
      proxy.close();
      await pool.close({ timeout: 0 });
    }
  });

  test('the start-up check names host and database, never the password', async () => {
    expect(await postgresProblem('postgres://postgres@127.0.0.1:5432/test')).toBeUndefined();
    const problem = await postgresProblem('postgres://app:s3cret-pw@127.0.0.1:1/appdb');
    expect(problem).toStartWith('cannot connect to 127.0.0.1:1/appdb: ');
    expect(problem).not.toContain('s3cret-pw');
    const missing = await postgresProblem('postgres://postgres@127.0.0.1:5432/no_such_db_here');
    expect(missing).toBe(
      'cannot connect to 127.0.0.1:5432/no_such_db_here: database "no_such_db_here" does not exist',
    );
  });
});
