import { expect } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQL } from 'bun';
import type { PasswordHasher } from '@/accounts/hashing';
import { createService, type ExtraRoutes } from '@/app';
import type { Audience } from '@/auth/tokens';
import { parseConfig } from '@/config';
import type { ReadCache } from '@/db/read-cache';
import { type Db, migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import type { Stores } from '@/stores';
import { onPostgres, poolOn, postgresForTestApp } from './postgres-mode';

export const BASE = 'http://localhost';

/** A clock tests move by hand: no sleeping on real timers. */
export function manualClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms: number) => {
    now += ms;
  };
  clock.set = (ms: number) => {
    now = ms;
  };
  return clock;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text, sent as is (malformed JSON, other media types). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** Databases the test apps opened, and every temp folder made: cleared when the run ends. */
const openDatabases: Db[] = [];
/** Redis connections the test apps opened: closed when the run ends. */
const openConnections: { close(): void }[] = [];
const tempDirs: string[] = [];

/** A new temp folder, removed once the run ends (test/support/cleanup.ts). */
export function tempDir(prefix = 'listings-test-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Closes `connection` when the run ends, with the test apps. */
export function closeAtEnd(connection: { close(): void }): void {
  openConnections.push(connection);
}

export function closeTestApps(): void {
  for (const connection of openConnections.splice(0)) connection.close();
  for (const db of openDatabases.splice(0)) {
    try {
      db.$client.close();
    } catch {}
  }
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * `TEST_REDIS_URL=redis://… bun test …` runs the chosen suites with every
 * test app on that Redis (a prefix of its own each), to check that the
 * shared state answers as the in-process state does. Unset: nothing.
 */
function sharedStateEnv(): Record<string, string> {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return {};
  return { REDIS_URL: url, REDIS_PREFIX: `test-${crypto.randomUUID().slice(0, 8)}:` };
}

export interface TestAppOptions {
  /** Environment variables on top of a temp DATABASE_PATH and LOG_LEVEL=silent. */
  env?: Record<string, string>;
  clock?: ReturnType<typeof manualClock>;
  /** Probe routes mounted after the service's own, inside the same pipeline. */
  extraRoutes?: ExtraRoutes;
  /** The password hash under the server's bounded hasher (default argon2id). */
  hasher?: PasswordHasher;
  /**
   * Stores in place of the app's own (the SQLite file's, or PostgreSQL's under
   * `TEST_DATABASE=postgres`); `storesUnderTest` (test/support/stores-under-test.ts) passes them.
   */
  stores?: Partial<Stores>;
  /** The read cache of a store passed above (see `CreateAppOptions.readCache`). */
  readCache?: ReadCache;
  /** An app on the database of another (a restart, a second instance; close a restarted SQLite file first). */
  databaseOf?: TestContext;
  /** Litestream's metrics, for an app with REPLICA_URL that reads the replication's state. */
  replicationMetricsUrl?: string;
  /** The whole service on this PostgreSQL database (`postgresForTestApp`), whatever TEST_DATABASE says. */
  postgresUrl?: string;
}

/**
 * A fresh migrated SQLite file in a temp dir (a PostgreSQL database under
 * `TEST_DATABASE=postgres`), the whole service on top of it,
 * and helpers that call it through `fetch`, the production pipeline (fast
 * lane, request context, backstop, idempotency, Elysia).
 */
export function createTestApp({
  env = {},
  clock = manualClock(Date.now()),
  extraRoutes,
  hasher,
  stores,
  readCache,
  databaseOf,
  postgresUrl,
  replicationMetricsUrl,
}: TestAppOptions = {}) {
  const dir = tempDir();
  const config = parseConfig({
    DATABASE_PATH: databaseOf?.config.databasePath ?? join(dir, 'app.db'),
    LOG_LEVEL: 'silent',
    // Notifications queue mail on sign-ins and changes; the suites that test them turn them on.
    MAIL_NOTIFICATIONS: 'none',
    ...sharedStateEnv(),
    ...env,
  });
  const opened = openTestDatabase(config.databasePath, postgresUrl ? { postgresUrl } : databaseOf);
  const { db, postgres } = opened;
  const shared = buildDeps({
    ...{ config, db, postgres, logger: createLogger('silent'), clock },
    ...{ hasher, stores, readCache, replicationMetricsUrl },
  });
  if (shared.redis) closeAtEnd(shared.redis);
  if (shared.notices) closeAtEnd(shared.notices);
  /** Requests the fast lane answered (test/support/lanes.ts tells the lanes apart with it). */
  const lanes = { fast: 0 };
  const { deps, app, fetch, fullPipeline } = createService(shared, extraRoutes, {
    onFastAnswer: () => {
      lanes.fast++;
    },
  });

  async function request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<TestResponse<T>> {
    const headers = new Headers({ accept: 'application/json', ...options.headers });
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const response = await fetch(new Request(`${BASE}${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, text, body: parsed as T };
  }

  const tokenFor = (sub: string, aud: Audience = 'customer', ttlSeconds = 3600) =>
    deps.tokens.issue(sub, aud, ttlSeconds);

  /** The app's SQLite database: a test that reads it runs on SQLite only (`sqliteOnly`). */
  const sqliteDb = db ?? noSqlite;
  /** Takes the app's database away (the SQLite file closed, or the pool), as an outage would. */
  const closeDatabase = async () =>
    postgres ? postgres.close({ timeout: 0 }) : db?.$client.close();
  return {
    ...{ app, fetch, fullPipeline, lanes, db: sqliteDb, deps, config, dir, clock, request },
    ...{ tokenFor, closeDatabase, postgresUrl: opened.postgresUrl },
  };
}

/** The name GET /health gives the test apps' database. */
export const DATABASE_BACKEND = onPostgres ? 'postgresql' : 'sqlite';

/** `ctx.db` of an app on PostgreSQL: any use says why it fails. */
const noSqlite = new Proxy({} as Db, {
  get() {
    throw new Error('ctx.db is the SQLite file: this app serves from PostgreSQL');
  },
});

/** A fresh migrated SQLite file of its own, closed when the run ends, whatever TEST_DATABASE says. */
export function sqliteDatabase(path = join(tempDir(), 'app.db')): Db {
  const db = openDatabase(path);
  openDatabases.push(db);
  migrateDatabase(db);
  return db;
}

/** SQLite at `path`, migrated, or under `TEST_DATABASE=postgres` a fresh PostgreSQL database. */
function openTestDatabase(
  path: string,
  databaseOf?: Pick<TestContext, 'postgresUrl'>,
): { db?: Db; postgres?: SQL; postgresUrl?: string } {
  if (databaseOf?.postgresUrl) {
    return { postgres: poolOn(databaseOf.postgresUrl), postgresUrl: databaseOf.postgresUrl };
  }
  if (onPostgres) {
    const { pool, url } = postgresForTestApp();
    return { postgres: pool, postgresUrl: url };
  }
  return { db: sqliteDatabase(path) };
}

export type TestContext = ReturnType<typeof createTestApp>;

/** The exact problem body for a status (fixed title and detail). */
import { problemOf } from '@/api/problem';

export { problemOf };

/**
 * The 400 problem naming `names` in order, whatever their reasons (the
 * reasons are checked where the parameter is the subject of the test).
 */
export const badRequestNaming = (...names: string[]) => ({
  ...problemOf(400),
  invalidParams: names.map((name) => ({ name, reason: expect.any(String) })),
});

/** The 400 problem naming what it refused: `badRequest(['itemsPerPage', 'must be …'])`. */
export const badRequest = (...params: (readonly [name: string, reason: string])[]) =>
  problemOf(
    400,
    undefined,
    undefined,
    params.map(([name, reason]) => ({ name, reason })),
  );
