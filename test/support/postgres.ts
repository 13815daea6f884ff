import { afterAll, beforeAll, describe } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { SQL } from 'bun';
import { migratePostgres } from '@/db/pg/migrate';

/**
 * The PostgreSQL the tests use (trust auth on 127.0.0.1:5432 unless
 * TEST_POSTGRES_URL says otherwise). Each test file makes its own databases
 * with `createTestDatabase` and drops them after, so files stay independent.
 */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function answers(url: string): Promise<boolean> {
  const client = new SQL(url, { max: 1, connectionTimeout: 2 });
  try {
    await client`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await client.close({ timeout: 0 });
  }
}

/** Whether PostgreSQL answered; suites needing it skip when it did not. */
export const postgresAvailable = await answers(POSTGRES_ADMIN_URL);

/** A describe title that says why its tests are skipped on a machine without PostgreSQL. */
export function pgSuite(title: string): string {
  return postgresAvailable
    ? title
    : `${title} (skipped: no PostgreSQL answers at ${new URL(POSTGRES_ADMIN_URL).host})`;
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A name for `createTestDatabase`, known before the database is made. */
export const testDatabaseName = () => `t_${randomBytes(6).toString('hex')}`;

/** The address of a test database by its name. */
export function testDatabaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A fresh database `t_<random>` (or `name`), empty or a copy of `template` (a test
 * database nothing is connected to); `drop()` ends its connections and
 * removes it.
 */
export async function createTestDatabase(
  template?: TestDatabase,
  name = testDatabaseName(),
): Promise<TestDatabase> {
  const admin = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template.name}` : ''}`);
  } finally {
    await admin.close();
  }
  return {
    name,
    url: testDatabaseUrl(name),
    drop: () => dropTestDatabase(name),
  };
}

/** Ends the connections to the test database `name` and removes it. */
export async function dropTestDatabase(name: string): Promise<void> {
  const closer = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
  try {
    await closer.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await closer.close();
  }
}

/**
 * A migrated database for the `describe` it is called in: made before its
 * tests, dropped after them. `client()` is a pool of `max` connections to it.
 */
export function migratedDatabaseForSuite(max: number) {
  let database: TestDatabase | undefined;
  let pool: SQL | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migratePostgres(database.url);
    pool = new SQL(database.url, { max });
  });
  afterAll(async () => {
    await pool?.close({ timeout: 0 });
    await database?.drop();
  });
  return {
    client: () => {
      if (!pool) throw new Error('the database is made before the tests of its describe');
      return pool;
    },
  };
}

/**
 * The databases of one suite: each `fresh()` one a copy of a template
 * migrated once per suite (a copy is much quicker than migrating), with
 * clients from `connect`; `dropAll()` closes the clients and drops them all
 * (the template last: nothing may copy it while it goes).
 */
export function suiteDatabases() {
  let template: Promise<TestDatabase> | undefined;
  const databases: TestDatabase[] = [];
  const clients: SQL[] = [];
  return {
    async fresh(): Promise<TestDatabase> {
      template ??= createTestDatabase().then(async (database) => {
        databases.push(database);
        await migratePostgres(database.url);
        return database;
      });
      const database = await createTestDatabase(await template);
      databases.push(database);
      return database;
    },
    /** A fresh database and a client on it. */
    async withClient(): Promise<{ url: string; client: SQL }> {
      const { url } = await this.fresh();
      return { url, client: this.connect(url) };
    },
    connect(url: string): SQL {
      // Idle connections go after a second: a file may open a client per test,
      // and PostgreSQL allows only so many connections (100 by default).
      const client = new SQL(url, { max: 4, idleTimeout: 1 });
      clients.push(client);
      return client;
    },
    async dropAll(): Promise<void> {
      await Promise.all(clients.splice(0).map((client) => client.close({ timeout: 0 })));
      const [made, ...copies] = databases.splice(0);
      await Promise.all(copies.map((database) => database.drop()));
      await made?.drop();
      template = undefined;
    },
    /** A `describe` titled `… (PostgreSQL)`, skipped with its reason when none answers; `dropAll` after. */
    describe(title: string, body: () => void): void {
      describe.skipIf(!postgresAvailable)(pgSuite(`${title} (PostgreSQL)`), () => {
        afterAll(() => this.dropAll(), 60_000);
        body();
      });
    },
  };
}
