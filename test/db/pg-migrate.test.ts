import { afterEach, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { MigrationError, readMigrations } from '@/db/migrations';
import {
  MIGRATION_LOCK_KEY,
  migratePostgres,
  PG_MIGRATIONS_TABLE,
  pgMigrationsFolder,
} from '@/db/pg/migrate';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';

const migrations = readMigrations(pgMigrationsFolder);
const opened: TestDatabase[] = [];

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  opened.push(database);
  return database;
}

afterEach(async () => {
  for (const database of opened.splice(0)) await database.drop();
});

async function recorded(url: string): Promise<string[]> {
  const client = new SQL(url, { max: 1 });
  try {
    const rows = await client.unsafe<{ hash: string }[]>(
      `SELECT hash FROM ${PG_MIGRATIONS_TABLE} ORDER BY id`,
    );
    return rows.map((row) => row.hash);
  } finally {
    await client.close();
  }
}

describe.skipIf(!postgresAvailable)(pgSuite('migratePostgres'), () => {
  test('happy: two instances starting together migrate once; both succeed', async () => {
    const { url } = await freshDatabase();
    const [first, second] = await Promise.all([migratePostgres(url), migratePostgres(url)]);
    const everyTag = migrations.map((migration) => migration.tag);
    // One applied everything; the other, let in after it, found nothing pending.
    expect([first, second].sort((a, b) => b.length - a.length)).toEqual([everyTag, []]);
    expect(await recorded(url)).toEqual(migrations.map((migration) => migration.hash));
  });

  test('happy: a migrator waits for the lock another instance holds', async () => {
    const { url } = await freshDatabase();
    const holder = new SQL(url, { max: 1 });
    const observer = new SQL(url, { max: 1 });
    try {
      let release: () => void = () => {};
      const held = holder.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      // pg_locks lists the whole server's locks: only this database's count,
      // not those of other suites migrating at the same time.
      const advisory = (granted: boolean) => observer`
        SELECT 1 FROM pg_locks
         WHERE locktype = 'advisory' AND granted = ${granted}
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      // The holder has the lock once pg_locks shows it granted.
      while ((await advisory(true)).length === 0);
      const migrating = migratePostgres(url);
      while ((await advisory(false)).length === 0);
      const [counted] = await observer<{ tables: number }[]>`
        SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = 'public'`;
      expect(counted?.tables).toBe(0);
      release();
      await held;
      expect(await migrating).toEqual(migrations.map((migration) => migration.tag));
    } finally {
      await holder.close();
      await observer.close();
    }
  });

  test('happy: a second run applies nothing', async () => {
    const { url } = await freshDatabase();
    await migratePostgres(url);
    expect(await migratePostgres(url)).toEqual([]);
    expect((await recorded(url)).length).toBe(migrations.length);
  });

  test('error: a failing migration leaves the database as it was and is named', async () => {
    const { url } = await freshDatabase();
    const broken = [
      ...migrations,
      {
        tag: '9999_broken',
        when: Date.now() + 1,
        statements: ['SELECT * FROM nowhere'],
        hash: 'x',
      },
    ];
    const failure = await migratePostgres(url, broken).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as MigrationError).tag).toBe('9999_broken');
    const client = new SQL(url, { max: 1 });
    try {
      const [counted] = await client<{ tables: number }[]>`
        SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname IN ('public', 'drizzle')`;
      expect(counted?.tables).toBe(0);
    } finally {
      await client.close();
    }
  });
});
