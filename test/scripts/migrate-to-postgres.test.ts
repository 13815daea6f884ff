import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { mismatches } from '@/db/pg/copy';
import { copyField, copyLine } from '@/db/pg/copy-text';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { seedProperties } from '../../scripts/seed';
import { tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';
import { runScript } from '../support/script';

/** `npm run migrate-to-postgres -- …` with `env` over a clean environment. */
const migrateToPostgres = (args: string[], env: Record<string, string> = {}) =>
  runScript('migrate-to-postgres.ts', args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...env,
  });

/** A migrated SQLite file with seeded listings and a row in the tables of other kinds of columns. */
async function seededSqlite(): Promise<string> {
  const path = join(tempDir(), 'source.db');
  const db = openDatabase(path);
  migrateDatabase(db);
  await seedProperties(db, { properties: 120, unitsPerProperty: 2, now: 1_750_000_000_000 });
  const sqlite = db.$client;
  sqlite.run(
    "INSERT INTO users (id, email, password_hash, role, created_at) VALUES ('u-1', 'a@example.com', 'h', 'employee', 1700000000123)",
  );
  sqlite.run(
    `INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name, created_at)
     VALUES ('pk-1', 'u-1', 'cred', ?, 7, '["usb","nfc"]', 'multiDevice', 1, 'Key	"one"\\x', 1700000000456)`,
    [new Uint8Array([0, 1, 92, 255])],
  );
  sqlite.run(
    "INSERT INTO transactions (customer_id, booking_id, amount_cents, currency, pay_date, status, description) VALUES ('c-1', 'b-1', 1999, 'EUR', '2026-01-02', 'paid', 'line one\nline two')",
  );
  // AUTOINCREMENT keeps ids of pruned rows from coming back; the copy must too.
  for (let i = 0; i < 3; i++) {
    sqlite.run(
      "INSERT INTO events (type, occurred_at, resource_kind, resource_id, data) VALUES ('x', 1, 'property', 'p', '{}')",
    );
  }
  sqlite.run("DELETE FROM events WHERE type = 'x'");
  sqlite.close();
  return path;
}

describe('COPY text fields', () => {
  test('escapes what the text format reserves and writes null, booleans and bytes', () => {
    expect(copyField(null, 'text')).toBe('\\N');
    expect(copyField('a\tb\nc\\d\re', 'text')).toBe('a\\tb\\nc\\\\d\\re');
    expect([copyField(1, 'boolean'), copyField(0, 'boolean')]).toEqual(['t', 'f']);
    expect(copyField(new Uint8Array([0, 255]), 'bytea')).toBe('\\\\x00ff');
    expect(copyLine([1, null, 'x'], ['bigint', 'text', 'text'])).toBe('1\t\\N\tx\n');
  });

  test('a count that differs is a mismatch', () => {
    const counts = [
      { table: 'units', sqlite: 3, postgres: 3 },
      { table: 'properties', sqlite: 2, postgres: 1 },
    ];
    expect(mismatches(counts).map((count) => count.table)).toEqual(['properties']);
  });
});

describe('migrate-to-postgres refuses bad arguments in one line', () => {
  test('error: --to that is not a PostgreSQL URL is bad usage (exit 2), not echoed', async () => {
    const run = await migrateToPostgres(['--from', 'nowhere.db', '--to', 'mysql://x/y']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'migrate-to-postgres: --to must be a postgres:// or postgresql:// URL (got 11 characters, not shown)\ntry: npm run migrate-to-postgres -- --help',
    );
  });

  test('error: DATABASE_URL unset, or not a URL', async () => {
    const unset = await migrateToPostgres([], { DATABASE_PATH: 'nowhere.db' });
    expect([unset.code, unset.stderr]).toEqual([
      1,
      'DATABASE_URL: not set; set it or pass --to postgres://…',
    ]);
    const bad = await migrateToPostgres([], { DATABASE_URL: 'not a url' });
    expect([bad.code, bad.stderr.split('\n').length]).toEqual([1, 1]);
    expect(bad.stderr).toStartWith('Invalid configuration: DATABASE_URL: not a postgres://');
  });

  test('error: a --from file that is not a SQLite database, before any connection', async () => {
    const path = join(tempDir(), 'notes.txt');
    await Bun.write(path, 'not a database, just text that is long enough to have a header page');
    const run = await migrateToPostgres(['--from', path, '--to', 'postgres://127.0.0.1:1/x']);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).toStartWith(`--from: ${path}: not a readable SQLite database (`);
  });

  test('error: a server that does not answer', async () => {
    const path = await seededSqlite();
    const run = await migrateToPostgres([], {
      DATABASE_PATH: path,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).toStartWith('DATABASE_URL: cannot connect to 127.0.0.1:1/nothing: ');
  });
});

describe.skipIf(!postgresAvailable)(pgSuite('migrate-to-postgres'), () => {
  let source: string;
  let target: TestDatabase;
  let client: SQL;

  beforeAll(async () => {
    source = await seededSqlite();
    target = await createTestDatabase();
    client = new SQL(target.url, { max: 1 });
  });

  afterAll(async () => {
    await client?.close();
    await target?.drop();
  });

  test('happy: copies every table and prints matching counts', async () => {
    const run = await migrateToPostgres(['--from', source, '--to', target.url]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^table\s+sqlite\s+postgres$/);
    expect(lines.at(-1)).toMatch(/^copied 31 tables, [\d,]+ rows, in [\d.]+ s$/);
    expect(run.stdout).toMatch(/\nproperties\s+120\s+120\n/);
    expect(run.stdout).toMatch(/\nunits\s+240\s+240\n/);
    expect(run.stdout).not.toContain('differs');

    const [passkey] =
      await client`SELECT public_key, transports::text AS transports, backed_up, name, created_at FROM passkeys`;
    expect(passkey).toEqual({
      public_key: Buffer.from([0, 1, 92, 255]),
      transports: '["usb","nfc"]',
      backed_up: true,
      name: 'Key\t"one"\\x',
      created_at: '1700000000456',
    });
    const [transaction] = await client`SELECT amount_cents, description FROM transactions`;
    expect(transaction).toEqual({ amount_cents: '1999', description: 'line one\nline two' });
    // Vacuumed after the commit: the pages are all-visible (index-only counts) and analysed.
    const [copied] = await client<{ visible: number; pages: number; analysed: boolean }[]>`
      SELECT c.relallvisible AS visible, c.relpages AS pages, s.last_analyze IS NOT NULL AS analysed
      FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'properties'`;
    expect(copied!.pages).toBeGreaterThan(0);
    expect(copied!.visible).toBe(copied!.pages);
    expect(copied!.analysed).toBe(true);
  });

  test('happy: the triggers work again and sequences continue past the copied ids', async () => {
    const [counts] = await client<{ summed: string; properties: string }[]>`
      SELECT (SELECT sum(properties) FROM property_counts) AS summed,
             (SELECT count(*) FROM properties) AS properties`;
    expect(counts?.summed).toBe(counts?.properties);
    const [property] = await client<{ seq: string }[]>`
      INSERT INTO properties (id, type, owner_id, address_line1, city, city_id, postal_code,
        country, latitude, longitude, address_search, total_units, rentable_units, units_counter,
        source, created_at, updated_at)
      VALUES ('new', 'studio', 'o', 'x', 'Madrid', 'madrid', '1', 'ES', 0, 0, 'x', 0, 0, 0, 'inbound', 1, 1)
      RETURNING seq`;
    expect(Number(property?.seq)).toBe(121);
    const [after] = await client<
      { summed: string }[]
    >`SELECT sum(properties) AS summed FROM property_counts`;
    expect(after?.summed).toBe('121');
    // Three events were written and pruned in SQLite: id 4 is the next one, as there.
    const [event] = await client<{ id: string }[]>`
      INSERT INTO events (type, occurred_at, resource_kind, resource_id, data)
      VALUES ('y', 1, 'property', 'p', '{}') RETURNING id`;
    expect(Number(event?.id)).toBeGreaterThan(3);
  });

  test('error: a second copy into the now non-empty database is refused, changing nothing', async () => {
    const run = await migrateToPostgres(['--from', source, '--to', target.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^the target database is not empty \(\w+ has rows\); copy into an empty database$/,
    );
    const [row] = await client<{ n: string }[]>`SELECT count(*) AS n FROM properties`;
    expect(row?.n).toBe('121');
  });

  test('error: a row PostgreSQL refuses fails the copy with nothing kept', async () => {
    const broken = join(tempDir(), 'broken.db');
    const db = openDatabase(broken);
    migrateDatabase(db);
    await seedProperties(db, { properties: 20, unitsPerProperty: 1 });
    db.$client.run('PRAGMA foreign_keys = OFF');
    db.$client.run(
      "INSERT INTO units (id, property_id, rentable, created_at, updated_at) VALUES ('orphan', 'no-such-property', 1, 1, 1)",
    );
    db.$client.close();
    const empty = await createTestDatabase();
    try {
      const run = await migrateToPostgres(['--from', broken, '--to', empty.url]);
      expect(run.code).toBe(1);
      // Progress lines come first, then the one line that says why.
      expect(run.stderr.split('\n').at(-1)).toStartWith('copy failed, nothing was kept: ');
      const check = new SQL(empty.url, { max: 1 });
      try {
        const [row] = await check<{ n: string }[]>`
          SELECT (SELECT count(*) FROM properties) + (SELECT count(*) FROM units)
            + (SELECT count(*) FROM property_counts) AS n`;
        expect(row?.n).toBe('0');
      } finally {
        await check.close();
      }
    } finally {
      await empty.drop();
    }
  });
});
