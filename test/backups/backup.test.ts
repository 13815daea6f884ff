import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKUP_NAME, BackupError, checkSnapshot, listBackups } from '@/backups';
import { createBackup } from '@/backups/create';
import { parseBackupName } from '@/backups/names';
import { run } from '@/workers/database-backup';
import { createTestApp, manualClock, tempDir } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, sqliteOnly } from '../support/postgres-mode';
import { openBackup, propertyBody } from './support';

const AT = Date.UTC(2026, 10, 22, 3, 0, 0, 123);

async function withProperties(env: Record<string, string> = {}, count = 3) {
  const ctx = createTestApp({ env, clock: manualClock(AT) });
  const token = await ctx.tokenFor('ops', 'employee');
  for (let i = 0; i < count; i++) {
    const res = await ctx.request('POST', '/listings/properties', {
      token,
      body: propertyBody(`Street ${i}`),
    });
    expect(res.status).toBe(201);
  }
  return { ...ctx, token };
}

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'happy', () => {
  test('the job writes a checked, gzip-compressed, owner-only snapshot with every row', async () => {
    const ctx = await withProperties();
    const details = await run(ctx.deps);
    const dir = join(ctx.dir, 'backups');
    expect(details).toEqual({
      name: 'backup-20261122T030000123Z.db.gz',
      size: statSync(join(dir, 'backup-20261122T030000123Z.db.gz')).size,
      databaseSize: expect.any(Number),
      durationMs: expect.any(Number),
      pruned: 0,
    });
    expect(readdirSync(dir)).toEqual(['backup-20261122T030000123Z.db.gz']);
    expect(statSync(join(dir, 'backup-20261122T030000123Z.db.gz')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const copy = openBackup(join(dir, 'backup-20261122T030000123Z.db.gz'));
    expect(copy.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    expect(copy.query('SELECT count(*) AS n FROM properties').get()).toEqual({ n: 3 });
    copy.close();
  });

  test('a run through the scheduler is a job_runs record with its size and duration', async () => {
    const ctx = await withProperties({}, 1);
    const result = await ctx.deps.jobs!.runNow('database-backup');
    expect(result.outcome).toBe('succeeded');
    expect(result.details).toMatchObject({
      size: expect.any(Number),
      durationMs: expect.any(Number),
    });
    const status = (await ctx.deps.jobs!.status()).find((job) => job.name === 'database-backup');
    expect(status?.schedule).toBe('0 3 * * *');
    expect(status?.lastRuns).toEqual([result]);
  });

  test('BACKUP_KEEP=2 keeps the newest two; files it did not make are never touched', async () => {
    const dir = tempDir();
    const ctx = await withProperties({ BACKUP_DIR: dir, BACKUP_KEEP: '2' }, 1);
    const foreign = ['notes.txt', 'backup-latest.db.gz', 'backup-20261122T030000123Z.db', 'app.db'];
    for (const name of foreign) writeFileSync(join(dir, name), 'keep me');
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      made.push(String((await run(ctx.deps)).name));
      ctx.clock.advance(60_000);
    }
    expect(made).toEqual([
      'backup-20261122T030000123Z.db.gz',
      'backup-20261122T030100123Z.db.gz',
      'backup-20261122T030200123Z.db.gz',
      'backup-20261122T030300123Z.db.gz',
    ]);
    expect(readdirSync(dir).sort()).toEqual([...foreign, ...made.slice(2)].sort());
  });

  test('two backups in the same millisecond get distinct names, newest listed first', async () => {
    const ctx = await withProperties({}, 0);
    const first = await run(ctx.deps);
    const second = await run(ctx.deps);
    expect([first.name, second.name]).toEqual([
      'backup-20261122T030000123Z.db.gz',
      'backup-20261122T030000123Z-1.db.gz',
    ]);
    expect(listBackups(join(ctx.dir, 'backups')).map((entry) => entry.name)).toEqual([
      'backup-20261122T030000123Z-1.db.gz',
      'backup-20261122T030000123Z.db.gz',
    ]);
  });

  test('--out writes exactly that file and refuses to replace one', async () => {
    const ctx = await withProperties({}, 1);
    const out = join(tempDir(), 'copy.db.gz');
    const result = await createBackup(ctx.db.$client, { dir: 'unused', now: AT, out });
    expect(result.path).toBe(out);
    expect(openBackup(out).query('SELECT count(*) AS n FROM properties').get()).toEqual({ n: 1 });
    expect(createBackup(ctx.db.$client, { dir: 'unused', now: AT, out })).rejects.toThrow(
      `${out} exists already; choose another file`,
    );
  });

  test('names: only the strict pattern parses, with its instant', () => {
    expect(parseBackupName('backup-20261122T030000123Z-pre-upgrade-2.db.gz')).toEqual({
      name: 'backup-20261122T030000123Z-pre-upgrade-2.db.gz',
      createdAt: new Date(AT),
      preUpgrade: true,
      sequence: 2,
    });
    for (const name of [
      'backup-20261122T030000123Z.db',
      'backup-20261122T030000123Z-0.db.gz',
      'backup-20261332T030000123Z.db.gz',
      '../backup-20261122T030000123Z.db.gz',
      'backup-20261122T030000123Z.db.gz/x',
      '.backup-1-abcd.gz.tmp',
    ]) {
      expect(parseBackupName(name)).toBeUndefined();
    }
    expect(BACKUP_NAME.test('backup-20261122T030000123Z.db.gz')).toBe(true);
  });
});

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'error', () => {
  test('an unwritable BACKUP_DIR fails the run (recorded), leaving no temporary file', async () => {
    const parent = tempDir();
    const blocker = join(parent, 'not-a-folder');
    writeFileSync(blocker, '');
    const ctx = await withProperties({ BACKUP_DIR: blocker }, 0);
    const result = await ctx.deps.jobs!.runNow('database-backup');
    expect(result.outcome).toBe('failed');
    expect(String(result.details.error)).toContain('not-a-folder');
    expect(readdirSync(parent)).toEqual(['not-a-folder']);
  });

  test('an in-memory database is skipped', async () => {
    const ctx = createTestApp({ env: { DATABASE_PATH: ':memory:' } });
    expect(await run(ctx.deps)).toEqual({ skipped: 'in-memory database' });
  });

  test('checkSnapshot refuses a non-SQLite file, a corrupt one and a foreign database', () => {
    const dir = tempDir();
    const text = join(dir, 'text.db');
    writeFileSync(text, 'hello, not a database at all');
    expect(() => checkSnapshot(text)).toThrow(
      new BackupError(`${text} does not hold a SQLite database`),
    );

    const foreign = join(dir, 'foreign.db');
    const other = new Database(foreign, { create: true });
    other.exec('CREATE TABLE t (a)');
    other.close();
    expect(() => checkSnapshot(foreign)).toThrow(
      `${foreign} is not a database of this service (no __drizzle_migrations table)`,
    );

    const corrupt = join(dir, 'corrupt.db');
    const db = new Database(corrupt, { create: true });
    db.exec('CREATE TABLE __drizzle_migrations (id, hash, created_at)');
    db.exec('CREATE TABLE t (a TEXT)');
    db.exec('CREATE INDEX t_a ON t (a)');
    db.transaction(() => {
      for (let i = 0; i < 500; i++) db.run('INSERT INTO t VALUES (?)', [`row ${i} `.repeat(20)]);
    })();
    db.close();
    // Pages 3 onwards (the rows and the index) overwritten: the header and schema still read.
    const buffer = readFileSync(corrupt);
    expect(buffer.length).toBeGreaterThan(16 * 4096);
    buffer.fill(0x5a, 2 * 4096 + 100);
    writeFileSync(corrupt, buffer);
    expect(() => checkSnapshot(corrupt)).toThrow(BackupError);
    expect(() => checkSnapshot(corrupt)).toThrow(
      /^.*corrupt\.db (failed the integrity check|is not a readable SQLite database): /,
    );
  });
});
