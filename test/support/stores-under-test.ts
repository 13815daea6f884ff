import type { SQL } from 'bun';
import { ReadCache } from '@/db/read-cache';
import type { Stores } from '@/stores';
import type { TestAppOptions } from './harness';
import { suiteDatabases } from './postgres';
import { SQLITE_STORE_RUN, sqliteOnly } from './postgres-mode';

/**
 * One store a domain's suites run against: each test's app serves the
 * domain from it through the production pipeline.
 */
export interface StoreUnderTest<App> {
  name: 'SQLite' | 'PostgreSQL';
  /** `describe` for this store; on PostgreSQL skipped, with the reason, when none answers. */
  describe(title: string, body: () => void): void;
  /** A fresh app whose stores under test hold nothing yet. */
  app(options?: TestAppOptions): Promise<App>;
}

/** The PostgreSQL database of one test: a client on it, and more clients on demand (a restart). */
export interface TestPostgres {
  url: string;
  client: SQL;
  connect(url: string): SQL;
}

/** How a domain's suites build their apps on each store. */
export interface StoreSuite<App> {
  /** The domain's stores on a PostgreSQL client; the app's other stores stay its own. */
  storesOn(client: SQL): Partial<Stores>;
  /**
   * Whether the app's read cache follows PostgreSQL's change feed: the suites
   * whose cached reads (properties, pages, transactions) move to PostgreSQL.
   */
  cachedOnPostgres: boolean;
  /** The app on its own database, with the suite's helpers. */
  sqlite(options?: TestAppOptions): App | Promise<App>;
  /** The app from `options` (which carry the PostgreSQL stores), with the suite's helpers on `database`. */
  postgres(options: TestAppOptions, database: TestPostgres): App | Promise<App>;
}

/**
 * A suite's two stores under test: `sqlite` (the app's own file), and
 * `postgres()`, whose apps each get a database of their own, copied from one
 * migrated template per `describe` (a copy is much quicker than migrating)
 * and dropped when it ends.
 */
export function storesUnderTestOf<App>(suite: StoreSuite<App>) {
  const sqlite: StoreUnderTest<App> = {
    name: 'SQLite',
    describe: (title, body) => sqliteOnly.describe(SQLITE_STORE_RUN, `${title} (SQLite)`, body),
    app: async (options) => suite.sqlite(options),
  };
  const postgres = (): StoreUnderTest<App> => {
    const databases = suiteDatabases();
    return {
      name: 'PostgreSQL',
      describe: (title, body) => databases.describe(title, body),
      async app(options = {}) {
        const { url, client } = await databases.withClient();
        const onPostgres: TestAppOptions = {
          ...options,
          stores: { ...options.stores, ...suite.storesOn(client) },
          ...(suite.cachedOnPostgres ? { readCache: new ReadCache({ postgres: client }) } : {}),
        };
        const connect = (at: string) => databases.connect(at);
        return suite.postgres(onPostgres, { url, client, connect });
      },
    };
  };
  /** SQLite, then PostgreSQL. */
  const both = (): StoreUnderTest<App>[] => [sqlite, postgres()];
  return { sqlite, postgres, both };
}
