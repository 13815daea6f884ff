import { afterAll, beforeAll } from 'bun:test';
import { SQL } from 'bun';
import { postgresAuditLog } from '@/audit/postgres-store';
import type { AuditContext, AuditEntry } from '@/audit/record';
import { migratePostgres } from '@/db/pg/migrate';
import { postgresEventStore } from '@/events/postgres-store';
import type { NewEvent } from '@/events/store';
import { postgresWebhookStore } from '@/webhooks/postgres-store';
import { postgresJobRuns } from '@/workers/postgres-job-runs';
import { createTestApp } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { storesUnderTestOf } from '../support/stores-under-test';

/**
 * The feed, webhook and audit log suites run once per store: each test's
 * app keeps events, webhooks and audit events in the store under test and
 * is called through the production pipeline; the other domains (listings, tokens) stay on the
 * app's SQLite file, so the suites write the rows they read straight into
 * the store's database.
 */
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
    ctx.deps.stores.events.appendEvents(events.map((event) => ({ event, now: ctx.clock() }))),
  recordAudit: async (context, entry) => ctx.deps.stores.audit.record(context, entry),
});

const stores = storesUnderTestOf<EventsTestApp>({
  storesOn: (client) => ({
    events: postgresEventStore(client),
    audit: postgresAuditLog(client),
    webhooks: postgresWebhookStore(client),
    jobRuns: postgresJobRuns(client),
  }),
  cachedOnPostgres: false,
  sqlite: (options) => withWriters(createTestApp(options)),
  postgres: (options, { client }) => ({ ...withWriters(createTestApp(options)), client }),
});

/** SQLite, then PostgreSQL. */
export const storesUnderTest = stores.both;

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
