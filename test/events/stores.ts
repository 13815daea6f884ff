import { afterAll, beforeAll } from 'bun:test';
import { SQL } from 'bun';
import { postgresAuditLog } from '@/audit/postgres-store';
import type { AuditContext, AuditEntry } from '@/audit/record';
import { migratePostgres } from '@/db/pg/migrate';
import { postgresEventStore } from '@/events/postgres-store';
import type { NewEvent } from '@/events/store';
import { postgresWebhookStore } from '@/webhooks/postgres-store';
import { postgresJobRuns } from '@/workers/job-runs';
import { createTestApp, type TestAppOptions } from '../support/harness';
import { createTestDatabase, suiteDatabases, type TestDatabase } from '../support/postgres';
import { SQLITE_STORE_RUN, sqliteOnly } from '../support/postgres-mode';

/**
 * The feed, webhook and audit log suites run once per store: each test's
 * app keeps events, webhooks and audit events in the store under test and
 * is called through the production pipeline; the other domains (listings, tokens) stay on the
 * app's SQLite file, so the suites write the rows they read straight into
 * the store's database.
 */
export interface StoreUnderTest {
  name: 'SQLite' | 'PostgreSQL';
  /** `describe` for this store; on PostgreSQL skipped, with the reason, when none answers. */
  describe(title: string, body: () => void): void;
  app(options?: TestAppOptions): Promise<EventsTestApp>;
}

export type EventsTestApp = ReturnType<typeof createTestApp> & {
  /** Appends events to the store's database, in one transaction, in order. */
  appendEvents(...events: NewEvent[]): Promise<void>;
  /** Writes one audit event into the store's database, as an action would. */
  recordAudit(context: AuditContext, entry: AuditEntry): Promise<void>;
  /** On PostgreSQL: a client on the app's database (tests of what only it can get wrong). */
  client?: SQL;
};

/** The app with the writers of the suites: straight into its stores, as other domains write. */
const withWriters = (ctx: ReturnType<typeof createTestApp>): EventsTestApp => ({
  ...ctx,
  appendEvents: async (...events) =>
    ctx.deps.events.appendEvents(events.map((event) => ({ event, now: ctx.clock() }))),
  recordAudit: async (context, entry) => ctx.deps.audit.record(context, entry),
});

const sqlite: StoreUnderTest = {
  name: 'SQLite',
  describe: (title, body) => sqliteOnly.describe(SQLITE_STORE_RUN, `${title} (SQLite)`, body),
  async app(options) {
    return withWriters(createTestApp(options));
  },
};

/**
 * Each app gets a database of its own, copied from one migrated template
 * per suite; all are dropped when the suite ends.
 */
function postgresStore(): StoreUnderTest {
  const databases = suiteDatabases();
  return {
    name: 'PostgreSQL',
    describe: (title, body) => databases.describe(title, body),
    async app(options) {
      const { client } = await databases.withClient();
      const ctx = createTestApp({
        ...options,
        eventStore: postgresEventStore(client),
        auditStore: postgresAuditLog(client),
        webhookStore: postgresWebhookStore(client),
        jobRunStore: postgresJobRuns(client),
      });
      return { ...withWriters(ctx), client };
    },
  };
}

/** SQLite, then PostgreSQL. */
export const storesUnderTest = (): StoreUnderTest[] => [sqlite, postgresStore()];

/** A PostgreSQL store under test of its own (its databases dropped when its `describe` ends). */
export const postgresUnderTest = postgresStore;

/** A property event of `owner` (its resource id `id`). */
export const propertyEvent = (
  id: string,
  owner: string | null = 'owner-1',
  type: NewEvent['type'] = 'property.created',
): NewEvent => ({
  type,
  resource: { kind: 'property', id },
  ownerId: owner,
  data: { id, note: 'señal "quoted" \\ ✓' },
});

/** Tokens of an employee, of `owner-1` and of `owner-2`. */
export async function tokensOf(app: EventsTestApp) {
  return {
    employee: await app.tokenFor('employee-1', 'employee'),
    owner: await app.tokenFor('owner-1'),
    other: await app.tokenFor('owner-2'),
  };
}

/**
 * One fresh migrated database for a PostgreSQL-only suite: `connect()`
 * opens a client on it; every client is closed and the database dropped
 * when the suite ends.
 */
export function pgSuiteDatabase() {
  let database: TestDatabase | undefined;
  const clients: SQL[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    await migratePostgres(database.url);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close({ timeout: 0 })));
    await database?.drop();
  }, 60_000);
  return {
    connect() {
      const client = new SQL(database!.url, { max: 4 });
      clients.push(client);
      return client;
    },
  };
}
