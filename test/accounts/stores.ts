import type { SQL } from 'bun';
import { asc } from 'drizzle-orm';
import { postgresAccountStore } from '@/accounts/postgres-store';
import { pgDatabase } from '@/db/pg/client';
import * as pg from '@/db/pg/schema';
import type { Db } from '@/db/sqlite/client';
import { type AuditAction, type AuditEventRow, auditEvents, users } from '@/db/sqlite/schema';
import { postgresMailOutbox } from '@/mail/postgres-store';
import {
  createTestApp,
  manualClock,
  type TestAppOptions,
  type TestContext,
} from '../support/harness';
import { type StoreUnderTest as StoreRun, storesUnderTestOf } from '../support/stores-under-test';
import { type AccountRows, accountHelpers, ORIGIN, UNBOUNDED } from './support';

/**
 * The accounts suites run once per store: each app serves users, sessions,
 * passkeys, used challenges and sign-in failures from the store under test
 * through the production pipeline, with the mail outbox on the same database
 * (a password reset queues its message in the accounts' transaction), the
 * other domains from the app's own SQLite file as always.
 */
export type StoreUnderTest = StoreRun<AccountsTestApp>;

export type AccountsTestApp = ReturnType<typeof accountHelpers>;

const only = (rows: AuditEventRow[], action?: AuditAction) =>
  action === undefined ? rows : rows.filter((row) => row.action === action);

/** Users and security-log rows written and read straight in a SQLite file. */
const sqliteRows = (db: Db): AccountRows => ({
  async insertUser(values) {
    db.insert(users).values(values).run();
  },
  usersOf: async (email) =>
    db
      .select()
      .from(users)
      .all()
      .filter((user) => user.email === email),
  auditRows: async (action) =>
    only(db.select().from(auditEvents).orderBy(asc(auditEvents.id)).all(), action),
});

/** Users and security-log rows written and read straight in a PostgreSQL database. */
function postgresRows(client: SQL): AccountRows {
  const db = pgDatabase(client);
  return {
    async insertUser(values) {
      await db.insert(pg.users).values(values);
    },
    usersOf: async (email) =>
      (await db.select().from(pg.users)).filter((user) => user.email === email),
    auditRows: async (action) =>
      only(await db.select().from(pg.auditEvents).orderBy(asc(pg.auditEvents.id)), action),
  };
}

/** The account rows of an app's own database (PostgreSQL's under `TEST_DATABASE=postgres`). */
export const accountRowsOf = (ctx: TestContext): AccountRows =>
  ctx.deps.postgres ? postgresRows(ctx.deps.postgres) : sqliteRows(ctx.db);

/** A loopback PUBLIC_ORIGIN, the bounds the suites lift, and a clock the test moves. */
const accountsOptions = (options: TestAppOptions = {}): TestAppOptions => ({
  ...options,
  env: { PUBLIC_ORIGIN: ORIGIN, ...UNBOUNDED, ...options.env },
  clock: options.clock ?? manualClock(),
});

const stores = storesUnderTestOf<AccountsTestApp>({
  storesOn: (client) => ({
    accounts: postgresAccountStore(client),
    mail: postgresMailOutbox(client),
  }),
  cachedOnPostgres: false,
  sqlite(options) {
    const ctx = createTestApp(accountsOptions(options));
    return accountHelpers(ctx, accountRowsOf(ctx));
  },
  postgres(options, { client }) {
    return accountHelpers(createTestApp(accountsOptions(options)), postgresRows(client));
  },
});

/** SQLite, then PostgreSQL. */
export const storesUnderTest = stores.both;

/** The service's default store (PostgreSQL under `TEST_DATABASE=postgres`), for suites that vary other things. */
export const sqliteUnderTest = stores.sqlite;

/** A PostgreSQL store under test of its own (its databases dropped when its `describe` ends). */
export const postgresUnderTest = stores.postgres;
