import type { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createService } from '@/app';
import { upgradeDatabase } from '@/backups';
import { parseConfig } from '@/config';
import { readMigrations, serviceMigrations } from '@/db/migrations';
import { MIGRATIONS_TABLE, migrationsFolder, openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import { openBackup } from '../backups/support';
import { BASE, tempDir } from '../support/harness';

/**
 * The database the last release left behind (made by
 * scripts/make-upgrade-fixture.ts from that release's checkout). Today's
 * build must upgrade it at start with every row of it intact, however many
 * migrations were appended since.
 */
const RELEASE = '0.1.0';
const FIXTURE = join(import.meta.dir, '..', 'fixtures', 'upgrade', `${RELEASE}.db`);
const AT = Date.UTC(2026, 10, 25, 3, 0, 0);

type Snapshot = Map<string, { columns: string[]; rows: string[] }>;

/** Every ordinary table's columns and rows (each row as JSON of those columns), rows sorted. */
function snapshotOf(client: Database, columnsOf?: Snapshot): Snapshot {
  const tables = client
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all();
  const snapshot: Snapshot = new Map();
  for (const { name } of tables) {
    const present = client
      .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${name}')`)
      .all()
      .map((column) => column.name);
    // Compared on the columns the release had, where they still exist.
    const columns = columnsOf?.get(name)?.columns.filter((c) => present.includes(c)) ?? present;
    const list = columns.map((c) => `"${c}"`).join(', ');
    const rows = client
      .query<Record<string, unknown>, []>(`SELECT ${list} FROM "${name}"`)
      .all()
      .map((row) => JSON.stringify(columns.map((c) => row[c])))
      .sort();
    snapshot.set(name, { columns, rows });
  }
  return snapshot;
}

/** Every row of `before` is in `after` (a migration may add rows, never lose one). */
function expectRowsKept(before: Snapshot, after: Snapshot) {
  for (const [table, { rows }] of before) {
    const kept = new Set(after.get(table)?.rows ?? []);
    const lost = rows.filter((row) => !kept.has(row));
    expect({ table, lost }).toEqual({ table, lost: [] });
  }
}

function copyOfRelease() {
  const dir = tempDir();
  const path = join(dir, 'app.db');
  copyFileSync(FIXTURE, path);
  return { dir, path, backupDir: join(dir, 'backups') };
}

/** migrations/ plus one appended migration that adds a column and a table. */
function migrationsWithOneMore(): string {
  const folder = join(tempDir('listings-migrations-'), 'migrations');
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
  const last = journal.entries.at(-1);
  const tag = '9000_appended';
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag });
  writeFileSync(journalPath, JSON.stringify(journal));
  writeFileSync(
    join(folder, `${tag}.sql`),
    'ALTER TABLE `properties` ADD `note` text;\n--> statement-breakpoint\nCREATE TABLE `appended` (`id` integer PRIMARY KEY);\n',
  );
  return folder;
}

describe(`upgrading the database of release ${RELEASE}`, () => {
  test("today's start-up upgrade keeps every row, takes a backup only when migrations are pending, and serves the data", async () => {
    const { path, backupDir } = copyOfRelease();
    const db = openDatabase(path);
    const before = snapshotOf(db.$client);
    expect(before.get('properties')!.rows.length).toBeGreaterThan(100);

    const upgrade = await upgradeDatabase(db.$client, serviceMigrations(migrationsFolder), {
      backupDir,
      now: AT,
    });
    expect(upgrade.backup !== undefined).toBe(upgrade.applied.length > 0);
    expectRowsKept(before, snapshotOf(db.$client, before));
    // Accounts of the release are verified: SIGN_UP=verify never locks them out.
    const accounts = db.$client
      .query<{ unverified: number; all: number }, []>(
        'SELECT sum(email_unverified) AS unverified, count(*) AS "all" FROM users',
      )
      .get()!;
    expect(accounts.all).toBeGreaterThan(0);
    expect(accounts.unverified).toBe(0);

    const config = parseConfig({
      DATABASE_PATH: path,
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'upgrade-test-secret-upgrade-test-secret-0123',
    });
    const deps = buildDeps({ config, db, logger: createLogger('silent') });
    const { fetch } = createService(deps);
    const property = db.$client
      .query<{ id: string; owner_id: string }, []>(
        'SELECT id, owner_id FROM properties WHERE archived = 0 ORDER BY id LIMIT 1',
      )
      .get()!;
    const token = await deps.tokens.issue('ops', 'employee', 600);
    const read = await fetch(
      new Request(`${BASE}/listings/properties/${property.id}`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: property.id, ownerId: property.owner_id });
    const pages = await fetch(new Request(`${BASE}/content/static-pages`));
    expect(pages.status).toBe(200);
    expect(((await pages.json()) as unknown[]).length).toBeGreaterThan(0);
  });

  test('a migration appended after the release: applied after a backup of the release data, every row kept', async () => {
    const { path, backupDir } = copyOfRelease();
    const db = openDatabase(path);
    const before = snapshotOf(db.$client);
    const releaseApplied = db.$client
      .query<{ at: number }, []>(`SELECT max(created_at) AS at FROM "${MIGRATIONS_TABLE}"`)
      .get()!.at;
    const upgrade = await upgradeDatabase(db.$client, readMigrations(migrationsWithOneMore()), {
      backupDir,
      now: AT,
    });
    // The migrations added since the release come first, then the appended one.
    const unreleased = readMigrations(migrationsFolder)
      .filter((migration) => migration.when > releaseApplied)
      .map((migration) => migration.tag);
    expect(upgrade.applied).toEqual([...unreleased, '9000_appended']);
    expect(upgrade.backup).toBeDefined();
    const after = snapshotOf(db.$client, before);
    expectRowsKept(before, after);
    expect(after.get('properties')!.columns).toEqual(before.get('properties')!.columns);

    // The backup holds the release's data as it was.
    const backup = openBackup(upgrade.backup!);
    expectRowsKept(before, snapshotOf(backup, before));
    expect(snapshotOf(backup).has('appended')).toBe(false);
  });
});
