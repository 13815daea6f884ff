import { afterAll, describe } from 'bun:test';
import { join } from 'node:path';
import { whereOf } from '@/db/pg/connection';
import { openStores, type ScriptDatabase } from '../../scripts/database';
import { tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';

/**
 * The operator commands run once per database, as separate processes: on
 * SQLite at DATABASE_PATH, and on PostgreSQL at DATABASE_URL (skipped, with
 * the reason, when none answers).
 */
export interface CommandDatabase {
  name: 'SQLite' | 'PostgreSQL';
  /** `describe` titled `… (SQLite)` or `… (PostgreSQL)`; made databases are removed after it. */
  describe(title: string, body: () => void): void;
  /** A new database nothing has written to (PostgreSQL: not even migrated). */
  fresh(): Promise<FreshDatabase>;
}

export interface FreshDatabase {
  /**
   * The environment of a command on it: DATABASE_PATH (on SQLite the
   * generated JWT secret lives beside it), and on PostgreSQL DATABASE_URL
   * with the JWT_SECRET it requires.
   */
  env: Record<string, string>;
  databasePath: string;
  /** Set on PostgreSQL. */
  databaseUrl?: string;
  /** How the commands name it: the file, or `host:port/database`. */
  where: string;
  /** The stores on it, as the commands open them (closed after the `describe`). */
  open(): Promise<ScriptDatabase>;
}

function tracked() {
  const opened: ScriptDatabase[] = [];
  return {
    opened,
    async open(databasePath: string, databaseUrl?: string) {
      const database = await openStores(databasePath, databaseUrl);
      opened.push(database);
      return database;
    },
    closeAll: () => Promise.all(opened.splice(0).map((database) => database.close())),
  };
}

const sqlite: CommandDatabase = {
  name: 'SQLite',
  describe(title, body) {
    describe(`${title} (SQLite)`, () => {
      afterAll(() => stores.closeAll());
      body();
    });
  },
  async fresh() {
    const databasePath = join(tempDir('listings-command-'), 'app.db');
    const env = { ...process.env, DATABASE_PATH: databasePath, DATABASE_URL: '', JWT_SECRET: '' };
    return { env, databasePath, where: databasePath, open: () => stores.open(databasePath) };
  },
};

const made: TestDatabase[] = [];
const stores = tracked();

const postgres: CommandDatabase = {
  name: 'PostgreSQL',
  describe(title, body) {
    describe.skipIf(!postgresAvailable)(pgSuite(`${title} (PostgreSQL)`), () => {
      afterAll(async () => {
        await stores.closeAll();
        await Promise.all(made.splice(0).map((database) => database.drop()));
      }, 60_000);
      body();
    });
  },
  async fresh() {
    const database = await createTestDatabase();
    made.push(database);
    const databasePath = join(tempDir('listings-command-'), 'app.db');
    const env = {
      ...process.env,
      DATABASE_PATH: databasePath,
      DATABASE_URL: database.url,
      JWT_SECRET: 'a-test-secret-of-the-command-tests-0123456789',
    };
    return {
      env,
      databasePath,
      databaseUrl: database.url,
      where: whereOf(database.url),
      open: () => stores.open(databasePath, database.url),
    };
  },
};

/** Both databases, SQLite first. */
export const COMMAND_DATABASES: readonly CommandDatabase[] = [sqlite, postgres];
