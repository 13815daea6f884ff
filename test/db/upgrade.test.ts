import type { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/bun-sqlite';
import { migrate } from 'drizzle-orm/bun-sqlite/migrator';
import { UpgradeError, upgradeDatabase } from '@/backups';
import { readMigrations } from '@/db/migrations';
import { migrationsFolder, openDatabase } from '@/db/sqlite/client';
import { pendingMigrations } from '@/db/sqlite/migrate';
import { openBackup } from '../backups/support';
import { tempDir } from '../support/harness';

const root = join(import.meta.dir, '..', '..');
const AT = Date.UTC(2026, 10, 22, 3, 0, 0, 123);
const BROKEN = '9999_broken';

interface JournalFile {
  entries: { idx: number; when: number; tag: string; breakpoints: boolean; version: string }[];
}

/**
 * A copy of migrations/ with only the first `keep` journal entries, plus,
 * with `broken`, a pending migration whose second statement fails.
 */
function migrationsCopy(keep: number, broken = false): string {
  const folder = join(tempDir('listings-migrations-'), 'migrations');
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as JournalFile;
  journal.entries = journal.entries.slice(0, keep);
  if (broken) {
    const last = journal.entries.at(-1)!;
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag: BROKEN });
    writeFileSync(
      join(folder, `${BROKEN}.sql`),
      'CREATE TABLE `half_done` (`a` integer);\n--> statement-breakpoint\nALTER TABLE `no_such_table` ADD `b` integer;\n',
    );
  }
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

/** A database file migrated to `folder`, with a user and a job run in it. */
async function databaseAt(folder: string) {
  const dir = tempDir();
  const path = join(dir, 'app.db');
  const db = openDatabase(path);
  await upgradeDatabase(db.$client, readMigrations(folder), { backupDir: join(dir, 'b'), now: AT });
  db.$client.run(
    "INSERT INTO users (id, email, password_hash, role) VALUES ('u1', 'a@example.com', 'x', 'employee')",
  );
  db.$client.run(
    "INSERT INTO job_runs (job, started_at, finished_at, outcome, details) VALUES ('j', 1, 2, 'succeeded', '{}')",
  );
  return { dir, path, db, backupDir: join(dir, 'backups') };
}

const schemaOf = (client: Database) =>
  client.query('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all();
const countOf = (client: Database, table: string) =>
  (client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const ALL = readMigrations(migrationsFolder);

describe('happy', () => {
  test('a database at an earlier migration upgrades with its rows, after a pre-upgrade backup', async () => {
    const { db, backupDir } = await databaseAt(migrationsCopy(5));
    expect(pendingMigrations(db.$client, ALL).map((m) => m.tag)).toEqual(
      ALL.slice(5).map((m) => m.tag),
    );
    const result = await upgradeDatabase(db.$client, ALL, { backupDir, now: AT });
    expect(result).toEqual({
      applied: ALL.slice(5).map((m) => m.tag),
      backup: join(backupDir, 'backup-20261122T030000123Z-pre-upgrade.db.gz'),
    });
    expect(countOf(db.$client, 'users')).toBe(1);
    expect(countOf(db.$client, 'job_runs')).toBe(1);
    expect(countOf(db.$client, '__drizzle_migrations')).toBe(ALL.length);
    expect(countOf(db.$client, 'properties')).toBe(0);
    expect(db.$client.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });

    const before = openBackup(result.backup!);
    expect(countOf(before, '__drizzle_migrations')).toBe(5);
    expect(countOf(before, 'users')).toBe(1);
    before.close();

    expect(await upgradeDatabase(db.$client, ALL, { backupDir, now: AT })).toEqual({ applied: [] });
    expect(readdirSync(backupDir)).toHaveLength(1);
  });

  test('a new database is migrated without a backup', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'app.db'));
    const result = await upgradeDatabase(db.$client, ALL, {
      backupDir: join(dir, 'backups'),
      now: AT,
    });
    expect(result).toEqual({ applied: ALL.map((m) => m.tag), backup: undefined });
    expect(existsSync(join(dir, 'backups'))).toBe(false);
  });

  test("a new file holding only Litestream's tables is still new: migrated without a backup", async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'app.db'));
    // What Litestream creates in a file it starts replicating before the service first opens it.
    db.$client.run('CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)');
    db.$client.run('CREATE TABLE _litestream_lock (id INTEGER)');
    const result = await upgradeDatabase(db.$client, ALL, {
      backupDir: join(dir, 'backups'),
      now: AT,
    });
    expect(result).toEqual({ applied: ALL.map((m) => m.tag), backup: undefined });
    expect(existsSync(join(dir, 'backups'))).toBe(false);
  });

  test("a database migrated by drizzle's own migrator has nothing pending", () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'app.db'));
    migrate(drizzle({ client: db.$client }), { migrationsFolder });
    expect(pendingMigrations(db.$client, ALL)).toEqual([]);
    const hashes = db.$client.query('SELECT hash FROM __drizzle_migrations ORDER BY id').all();
    expect(hashes).toEqual(ALL.map((m) => ({ hash: m.hash })));
  });
});

describe('error: a failing migration changes nothing', () => {
  test('the restore hint is written the way the installation runs commands (the image: bun run)', async () => {
    const { db, backupDir } = await databaseAt(migrationsFolder);
    const error = await upgradeDatabase(
      db.$client,
      readMigrations(migrationsCopy(ALL.length, true)),
      { backupDir, now: AT, commandPrefix: 'bun run' },
    ).catch((caught: unknown) => caught);
    const backup = join(backupDir, 'backup-20261122T030000123Z-pre-upgrade.db.gz');
    expect((error as Error).message).toEndWith(`(bun run restore -- ${backup})`);
  });

  test('the one pending migration fails: rolled back, UpgradeError names it and the backup', async () => {
    const { db, backupDir } = await databaseAt(migrationsFolder);
    const schema = schemaOf(db.$client);
    const error = await upgradeDatabase(
      db.$client,
      readMigrations(migrationsCopy(ALL.length, true)),
      {
        backupDir,
        now: AT,
      },
    ).catch((caught: unknown) => caught);
    const backup = join(backupDir, 'backup-20261122T030000123Z-pre-upgrade.db.gz');
    expect(error).toBeInstanceOf(UpgradeError);
    expect((error as Error).message).toBe(
      `Upgrade failed: migration ${BROKEN} failed: no such table: no_such_table; no migration was applied, the database is as it was; a backup taken just before: ${backup} (npm run restore -- ${backup})`,
    );
    expect(schemaOf(db.$client)).toEqual(schema);
    expect(countOf(db.$client, 'users')).toBe(1);
    expect(existsSync(backup)).toBe(true);
  });

  test('several pending, the last fails: none of them is applied', async () => {
    const { db, backupDir } = await databaseAt(migrationsCopy(5));
    const schema = schemaOf(db.$client);
    await expect(
      upgradeDatabase(db.$client, readMigrations(migrationsCopy(ALL.length, true)), {
        backupDir,
        now: AT,
      }),
    ).rejects.toThrow(`migration ${BROKEN} failed`);
    expect(schemaOf(db.$client)).toEqual(schema);
    expect(countOf(db.$client, '__drizzle_migrations')).toBe(5);
  });

  test('the start-up upgrade as a process: exit 1, one line on stderr, database unchanged', async () => {
    const { path, db, backupDir } = await databaseAt(migrationsFolder);
    const schema = schemaOf(db.$client);
    db.$client.close();
    const proc = Bun.spawn(
      [
        process.execPath,
        'test/support/upgrade-process.ts',
        path,
        migrationsCopy(ALL.length, true),
        backupDir,
      ],
      { cwd: root, stdout: 'pipe', stderr: 'pipe' },
    );
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const [backup] = readdirSync(backupDir);
    expect(backup).toMatch(/^backup-\d{8}T\d{9}Z-pre-upgrade\.db\.gz$/);
    expect(stderr).toBe(
      `Upgrade failed: migration ${BROKEN} failed: no such table: no_such_table; no migration was applied, the database is as it was; a backup taken just before: ${join(backupDir, backup!)} (npm run restore -- ${join(backupDir, backup!)})\n`,
    );
    const reopened = openDatabase(path);
    expect(schemaOf(reopened.$client)).toEqual(schema);
    expect(countOf(reopened.$client, 'users')).toBe(1);
    reopened.$client.close();
  }, 30_000);
});
