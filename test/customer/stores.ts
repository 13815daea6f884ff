import type { SQL } from 'bun';
import { postgresCustomerStore } from '@/customer/postgres-store';
import type { CustomerStore } from '@/customer/store';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import { ReadCache } from '@/db/read-cache';
import { createTestApp, type TestAppOptions } from '../support/harness';
import { suiteDatabases } from '../support/postgres';
import { SQLITE_STORE_RUN, sqliteOnly } from '../support/postgres-mode';
import { makeTransaction, type TransactionSeed, transactionOf } from './factories';

/**
 * The customer suites run once per store: each test's app serves the
 * customer API from the store under test through the production pipeline,
 * the other domains (tokens, idempotency, the read cache) from the app's
 * own SQLite file as always.
 */
export interface StoreUnderTest {
  name: 'SQLite' | 'PostgreSQL';
  /** `describe` for this store; on PostgreSQL skipped, with the reason, when none answers. */
  describe(title: string, body: () => void): void;
  /** A fresh app whose customer store holds nothing yet. */
  app(options?: TestAppOptions): Promise<CustomerTestApp>;
}

export type CustomerTestApp = ReturnType<typeof createTestApp> & {
  /** Writes a transaction straight into the store's database; answers its id. */
  makeTransaction(overrides?: TransactionSeed): Promise<number>;
  /** Every stored transaction's amount in cents, by id. */
  storedAmounts(): Promise<number[]>;
  /**
   * The customer store a restarted server would open on the same data:
   * undefined on SQLite (the new app opens the file), a store on a new
   * connection to the same database on PostgreSQL.
   */
  restartedStore(): CustomerStore | undefined;
};

const sqlite: StoreUnderTest = {
  name: 'SQLite',
  describe: (title, body) => sqliteOnly.describe(SQLITE_STORE_RUN, `${title} (SQLite)`, body),
  async app(options) {
    const ctx = createTestApp(options);
    const { postgres } = ctx.deps;
    // Under TEST_DATABASE=postgres the app's own store is PostgreSQL's.
    if (postgres) {
      return { ...ctx, ...rowsIn(postgres), restartedStore: () => postgresCustomerStore(postgres) };
    }
    return {
      ...ctx,
      makeTransaction: async (overrides) => makeTransaction(ctx.db, overrides),
      storedAmounts: async () =>
        ctx.db.$client
          .query<{ c: number }, []>('SELECT amount_cents AS c FROM transactions ORDER BY id')
          .all()
          .map((row) => row.c),
      restartedStore: () => undefined,
    };
  },
};

/** Transactions written and read straight in a PostgreSQL database. */
function rowsIn(client: SQL): Pick<CustomerTestApp, 'makeTransaction' | 'storedAmounts'> {
  const db = pgDatabase(client);
  return {
    async makeTransaction(overrides) {
      const [row] = await db
        .insert(pg.transactions)
        .values(transactionOf(overrides))
        .returning({ id: pg.transactions.id });
      return row!.id;
    },
    async storedAmounts() {
      const rows = await db
        .select({ c: pg.transactions.amountCents })
        .from(pg.transactions)
        .orderBy(pg.transactions.id);
      return rows.map((row) => row.c);
    },
  };
}

/**
 * Each app gets a database of its own, copied from one migrated template
 * per suite (a copy is much quicker than migrating); all are dropped when
 * the suite ends.
 */
function postgresStore(): StoreUnderTest {
  const databases = suiteDatabases();

  return {
    name: 'PostgreSQL',
    describe: (title, body) => databases.describe(title, body),
    async app(options) {
      const { url, client } = await databases.withClient();
      const ctx = createTestApp({
        ...options,
        stores: { customer: postgresCustomerStore(client) },
        readCache: new ReadCache({ postgres: client }),
      });
      return {
        ...ctx,
        ...rowsIn(client),
        restartedStore: () => postgresCustomerStore(databases.connect(url)),
      };
    },
  };
}

/** SQLite, then PostgreSQL. */
export const storesUnderTest = (): StoreUnderTest[] => [sqlite, postgresStore()];

/** The default store of the service, for suites that vary other things. */
export const sqliteUnderTest = sqlite;

/** A PostgreSQL store under test of its own (its databases dropped when its `describe` ends). */
export const postgresUnderTest = postgresStore;
