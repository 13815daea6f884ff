import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { asc } from 'drizzle-orm';
import { toolContext } from '@/audit/record';
import { postgresCustomerStore } from '@/customer/postgres-store';
import { sqliteCustomerStore } from '@/customer/sqlite-store';
import type { CustomerStore } from '@/customer/store';
import { pgDatabase } from '@/db/pg/client';
import { migratePostgres } from '@/db/pg/migrate';
import * as pg from '@/db/pg/schema';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { auditEvents } from '@/db/sqlite/schema';
import { DomainError } from '@/kernel/errors';
import { MemoryStore } from '@/rate-limit/memory-store';
import { postgresWindowPersistence } from '@/rate-limit/postgres-window-persistence';
import type { WindowRule } from '@/rate-limit/store';
import { tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';
import { transactionOf } from './factories';

/**
 * What only the PostgreSQL store can get wrong: its operations run over
 * several round trips and connections, where SQLite's run in one
 * synchronous step on one writer. The routes' behaviour on both stores is
 * checked by the customer suites (test/customer/stores.ts).
 */

const AT = Date.UTC(2026, 10, 22, 12, 0, 0);
const audit = { ...toolContext(AT), actor: 'admin', requestId: 'r-1' };

/**
 * `client`, recording the text of each statement sent through it and
 * whether a transaction was begun.
 */
function recording(client: SQL): { client: SQL; statements: string[]; begun: () => boolean } {
  const statements: string[] = [];
  let begun = false;
  const proxy = new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (key === 'begin') begun = true;
      if (key !== 'unsafe' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (query: string, params?: unknown[]) => {
        statements.push(query);
        return target.unsafe(query, params);
      };
    },
  });
  return { client: proxy, statements, begun: () => begun };
}

describe.skipIf(!postgresAvailable)(pgSuite('the PostgreSQL customer store'), () => {
  let template: TestDatabase;
  const databases: TestDatabase[] = [];
  const clients: SQL[] = [];

  beforeAll(async () => {
    template = await createTestDatabase();
    await migratePostgres(template.url);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close({ timeout: 0 })));
    await Promise.all(databases.map((database) => database.drop()));
    await template?.drop();
  }, 60_000);

  /** A client on a fresh migrated database, with room for concurrent transactions. */
  async function freshClient(): Promise<SQL> {
    const database = await createTestDatabase(template);
    databases.push(database);
    const client = new SQL(database.url, { max: 6 });
    clients.push(client);
    return client;
  }

  test('happy: a page and its total are one statement, so one snapshot, without a transaction', async () => {
    const client = await freshClient();
    const writer = postgresCustomerStore(client);
    await writer.importTransactions([transactionOf(), transactionOf()]);
    const reader = recording(client);
    const listing = await postgresCustomerStore(reader.client).listTransactions(
      { customerId: 'customer-1' },
      1,
      15,
    );
    expect({ total: listing.total, rows: listing.rows.length }).toEqual({ total: 2, rows: 2 });
    expect(reader.statements).toHaveLength(1);
    expect(reader.statements[0]).toMatch(/count\(\*\).*order by/is);
    expect(reader.begun()).toBe(false);
    // Past the end: no page rows, the total still there.
    const past = await postgresCustomerStore(client).listTransactions({}, 3, 15);
    expect({ total: past.total, rows: past.rows.length }).toEqual({ total: 2, rows: 0 });
  });

  test('happy: reads during imports always see a total that matches their page', async () => {
    const client = await freshClient();
    const store = postgresCustomerStore(client);
    const imports = Array.from({ length: 40 }, () =>
      store.importTransactions([transactionOf(), transactionOf()]),
    );
    const reads = Array.from({ length: 40 }, () => store.listTransactions({}, 1, 100));
    const [listings] = await Promise.all([Promise.all(reads), Promise.all(imports)]);
    for (const listing of listings) expect(listing.rows).toHaveLength(listing.total);
    expect((await store.listTransactions({}, 1, 100)).total).toBe(80);
  });

  test('error: an import failing at its last row stores none of the rows before it', async () => {
    const client = await freshClient();
    const store = postgresCustomerStore(client);
    // Three statements of 500 rows; the last row is one PostgreSQL refuses
    // (text cannot hold NUL), after the first two statements went through.
    const rows = Array.from({ length: 1200 }, () => transactionOf());
    rows.push(transactionOf({ bookingId: 'BAD\u0000' }));
    await expect(Promise.resolve(store.importTransactions(rows))).rejects.toThrow();
    expect((await store.listTransactions({}, 1, 1)).total).toBe(0);
  });

  test('error: plans created at once with one slug: one is stored, the others are 422', async () => {
    const store = postgresCustomerStore(await freshClient());
    const created = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        store.createPlan({ name: `Gold ${i}`, slug: 'gold', limits: {} }, audit),
      ),
    );
    const stored = created.filter((result) => result.status === 'fulfilled');
    expect(stored).toHaveLength(1);
    for (const result of created) {
      if (result.status === 'fulfilled') continue;
      expect(result.reason).toBeInstanceOf(DomainError);
      expect((result.reason as DomainError).code).toBe('request.invalid');
    }
    expect((await store.listPlans()).map((plan) => plan.slug)).toEqual(['gold']);
  });

  test('happy: plans created at once with other slugs get ids 3, 4, 5, …', async () => {
    const store = postgresCustomerStore(await freshClient());
    const plans = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.createPlan({ name: `P${i}`, slug: `p-${i}`, limits: { day: i + 1 } }, audit),
      ),
    );
    expect(plans.map((plan) => plan.id).sort()).toEqual([3, 4, 5, 6, 7]);
  });

  test('happy: numbers past 32 bits and dates come back as SQLite gives them', async () => {
    const client = await freshClient();
    const store = postgresCustomerStore(client);
    const largest = 999_999_999_999_999; // 13 digits and 2 places, the most an amount has
    await store.importTransactions([
      transactionOf({ amountCents: largest, payDate: '2026-01-02' }),
      transactionOf({ amountCents: -largest, payDate: '2026-01-01' }),
    ]);
    const { rows } = await store.listTransactions(
      { amountFrom: -largest, amountTo: largest },
      1,
      5,
    );
    expect(rows.map((row) => row.amountCents)).toEqual([largest, -largest]);
    expect(rows.every((row) => typeof row.id === 'number')).toBe(true);

    const plan = await store.createPlan({ name: 'Big', slug: 'big', limits: {} }, audit);
    expect(plan.id).toBe(3);
    await store.assignPlan('c-1', plan.id, audit);
    const assigned = await store.customerPlan('c-1');
    expect(assigned?.id).toBe(3);
    expect(assigned?.createdAt).toBeInstanceOf(Date);

    const [event] = await pgDatabase(client).select().from(pg.auditEvents);
    expect(event?.at).toEqual(new Date(AT));
    expect(typeof event?.id).toBe('number');
  });

  test('happy: the same operations write the same audit rows as on SQLite', async () => {
    const sqlite = openDatabase(`${tempDir()}/app.db`);
    migrateDatabase(sqlite);
    const client = await freshClient();
    const run = async (store: CustomerStore) => {
      const gold = await store.createPlan(
        { name: 'Gold', slug: 'gold', limits: { day: 9 } },
        audit,
      );
      await store.updatePlan(gold.id, { name: 'Gold+', slug: 'gold', limits: {} }, audit);
      await store.assignPlan('c-1', gold.id, audit);
      await store.assignPlan('c-1', null, audit);
      await store.setEmployeeLimit('e-1', 2500, audit);
      await store.deletePlan(gold.id, audit);
    };
    await run(sqliteCustomerStore(sqlite));
    await run(postgresCustomerStore(client));
    const onSqlite = sqlite.select().from(auditEvents).orderBy(asc(auditEvents.id)).all();
    const onPostgres = await pgDatabase(client)
      .select()
      .from(pg.auditEvents)
      .orderBy(asc(pg.auditEvents.id));
    expect(onPostgres).toHaveLength(6);
    expect(onPostgres).toEqual(onSqlite);
    sqlite.$client.close();
  });

  test('happy: calendar usage written behind is loaded again by a new store', async () => {
    const persistence = postgresWindowPersistence(pgDatabase(await freshClient()));
    const rules: WindowRule[] = [
      { kind: 'minute', limit: 100 },
      { kind: 'hour', limit: 10 },
      { kind: 'day', limit: 10 },
    ];
    const first = new MemoryStore({ persistence });
    // Two hits at once on a caller not loaded yet: one load installs, both count.
    await Promise.all([first.hit('c:a', rules, AT), first.hit('c:a', rules, AT)]);
    await first.flush();
    const second = new MemoryStore({ persistence });
    const used = (await second.peek('c:a', rules, AT)).map((usage) => usage.used);
    expect(used).toEqual([0, 2, 2]);
    // 13:00: the hour window ended, the day window runs on.
    expect(await second.resetExpired(Date.UTC(2026, 10, 22, 13))).toBe(1);
    expect(await persistence.load('c:a')).toEqual([
      {
        subject: 'c:a',
        kind: 'day',
        start: Date.UTC(2026, 10, 22),
        end: Date.UTC(2026, 10, 23),
        used: 2,
      },
    ]);
  });
});
