import type { SQL } from 'bun';
import { postgresCustomerStore } from '@/customer/postgres-store';
import type { CustomerStore } from '@/customer/store';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import { createTestApp } from '../support/harness';
import { type StoreUnderTest as StoreRun, storesUnderTestOf } from '../support/stores-under-test';
import { makeTransaction, type TransactionSeed, transactionOf } from './factories';

/**
 * The customer suites run once per store: each test's app serves the
 * customer API from the store under test through the production pipeline,
 * the other domains (tokens, idempotency, the read cache) from the app's
 * own SQLite file as always.
 */
export type StoreUnderTest = StoreRun<CustomerTestApp>;

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

const stores = storesUnderTestOf<CustomerTestApp>({
  storesOn: (client) => ({ customer: postgresCustomerStore(client) }),
  cachedOnPostgres: true,
  sqlite(options) {
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
  postgres(options, { url, client, connect }) {
    return {
      ...createTestApp(options),
      ...rowsIn(client),
      restartedStore: () => postgresCustomerStore(connect(url)),
    };
  },
});

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

/** SQLite, then PostgreSQL. */
export const storesUnderTest = stores.both;

/** The default store of the service, for suites that vary other things. */
export const sqliteUnderTest = stores.sqlite;

/** A PostgreSQL store under test of its own (its databases dropped when its `describe` ends). */
export const postgresUnderTest = stores.postgres;
