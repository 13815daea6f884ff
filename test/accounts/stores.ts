import { beforeAll } from 'bun:test';
import type { SQL } from 'bun';
import { asc } from 'drizzle-orm';
import { postgresAccountStore } from '@/accounts/postgres-store';
import type { AccountStore, NewUser } from '@/accounts/store';
import { type PgDb, pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import type { Db } from '@/db/sqlite/client';
import { type AuditAction, type AuditEventRow, auditEvents, users } from '@/db/sqlite/schema';
import { postgresMailOutbox } from '@/mail/postgres-store';
import type { MailOutboxStore } from '@/mail/store';
import { suiteDatabases } from '../support/postgres';
import { onPostgres, SQLITE_STORE_RUN, sqliteOnly } from '../support/postgres-mode';

/**
 * The accounts suites run once per store: each app serves users, sessions,
 * passkeys, used challenges and sign-in failures from the store under test
 * through the production pipeline, the other domains from the app's own
 * SQLite file as always.
 */
export interface AccountStoreUnderTest {
  name: 'SQLite' | 'PostgreSQL';
  /** `describe` for this store; on PostgreSQL skipped, with the reason, when none answers. */
  describe(title: string, body: () => void): void;
  /**
   * The rows of one app, on the store under test; `db` is the app's SQLite
   * file, `postgres` its pool under TEST_DATABASE=postgres.
   */
  open(db: () => Db, postgres?: () => SQL | undefined): AccountData;
}

export interface AccountData {
  /** The store to build the app with (undefined: the app's own SQLite store). */
  store: AccountStore | undefined;
  /**
   * The mail outbox on the same database (undefined: the app's own), since
   * a password reset queues its message in the accounts' transaction.
   */
  mail?: MailOutboxStore;
  insertUser(values: NewUser): Promise<void>;
  /** Every stored user of this (normalized) email. */
  usersOf(email: string): Promise<unknown[]>;
  /** The security-log events the store holds, oldest first. */
  auditRows(action?: AuditAction): Promise<AuditEventRow[]>;
}

const only = (rows: AuditEventRow[], action?: AuditAction) =>
  action === undefined ? rows : rows.filter((row) => row.action === action);

const sqlite: AccountStoreUnderTest = {
  name: 'SQLite',
  describe: (title, body) => sqliteOnly.describe(SQLITE_STORE_RUN, `${title} (SQLite)`, body),
  open: (db, postgres) =>
    onPostgres
      ? { store: undefined, ...rowsIn(async () => pgDatabase(postgres?.() as SQL)) }
      : sqliteRows(db),
};

const sqliteRows = (db: () => Db): AccountData => ({
  store: undefined,
  async insertUser(values) {
    db().insert(users).values(values).run();
  },
  usersOf: async (email) =>
    db()
      .select()
      .from(users)
      .all()
      .filter((user) => user.email === email),
  auditRows: async (action) =>
    only(db().select().from(auditEvents).orderBy(asc(auditEvents.id)).all(), action),
});

/** Users and security-log rows written and read straight in a PostgreSQL database. */
const rowsIn = (db: () => Promise<PgDb>): Omit<AccountData, 'store'> => ({
  async insertUser(values) {
    await (await db()).insert(pg.users).values(values);
  },
  usersOf: async (email) =>
    (await (await db()).select().from(pg.users)).filter((user) => user.email === email),
  auditRows: async (action) =>
    only(await (await db()).select().from(pg.auditEvents).orderBy(asc(pg.auditEvents.id)), action),
});

/**
 * A store that waits for its database: the suites build their apps
 * synchronously, in a `describe` or a test, while a database copy is made.
 */
function whenMade<T extends object>(made: Promise<T>): T {
  return new Proxy({} as T, {
    get(_, key) {
      if (key === 'then') return undefined;
      if (key === 'failures') return whenMade(made.then((store) => Reflect.get(store, key)));
      return (...args: unknown[]) =>
        made.then((store) =>
          (Reflect.get(store, key) as (...a: unknown[]) => unknown).apply(store, args),
        );
    },
  });
}

type Databases = ReturnType<typeof suiteDatabases>;

/**
 * Each app gets a database of its own, copied from one migrated template
 * per `describe` (test/support/postgres.ts, `suiteDatabases`); all are
 * dropped when that `describe` ends. An app built while a `describe` is
 * collected belongs to it, one built inside a test to the `describe`
 * running. The store and the outbox wait for the copy (`whenMade`), since
 * the suites build their apps synchronously.
 */
function postgresStore(): AccountStoreUnderTest {
  let collecting: Databases | undefined;
  let running: Databases | undefined;
  return {
    name: 'PostgreSQL',
    describe(title, body) {
      const databases = suiteDatabases();
      databases.describe(title, () => {
        beforeAll(() => {
          running = databases;
        });
        const outer = collecting;
        collecting = databases;
        try {
          body();
        } finally {
          collecting = outer;
        }
      });
    },
    open() {
      const databases = collecting ?? running;
      if (!databases) throw new Error("a PostgreSQL app is built inside its store's describe");
      const made = databases.withClient().then(({ client }) => client);
      return {
        store: whenMade(made.then((client) => postgresAccountStore(client))),
        mail: whenMade(made.then((client) => postgresMailOutbox(client))),
        ...rowsIn(async () => pgDatabase(await made)),
      };
    },
  };
}

/** SQLite, then PostgreSQL. */
export const accountStoresUnderTest = (): AccountStoreUnderTest[] => [sqlite, postgresStore()];

/** The service's default store, for suites that vary other things. */
export const sqliteAccounts = sqlite;

/** A PostgreSQL store under test of its own. */
export const postgresAccounts = postgresStore;
