import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBackup } from '@/backups';
import { freePort, startServer } from '../accounts/server-process';
import { createTestApp, manualClock, tempDir } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, sqliteOnly } from '../support/postgres-mode';
import { propertyBody } from './support';

const root = join(import.meta.dir, '..', '..');

/** Runs `bun scripts/<script>.ts ...args` against DATABASE_PATH=`database`. */
async function command(script: string, args: string[], database: string) {
  const proc = Bun.spawn([process.execPath, `scripts/${script}.ts`, ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_PATH: database, LOG_LEVEL: 'silent' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

const countOf = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** A service database with `count` properties, and a backup of it taken after the first `backedUp`. */
async function databaseWithBackup(count: number, backedUp: number) {
  const ctx = createTestApp({ clock: manualClock() });
  const token = await ctx.tokenFor('ops', 'employee');
  let backup = '';
  for (let i = 0; i < count; i++) {
    if (i === backedUp) {
      backup = (await createBackup(ctx.db.$client, { dir: join(ctx.dir, 'backups'), now: 1 })).path;
    }
    const res = await ctx.request('POST', '/listings/properties', {
      token,
      body: propertyBody(`Street ${i}`),
    });
    expect(res.status).toBe(201);
  }
  // A copy no connection of this process holds (the test app's stays open until the run ends).
  const database = join(tempDir(), 'app.db');
  ctx.db.$client.run('VACUUM INTO ?', [database]);
  return { database, backup };
}

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'happy', () => {
  test('restore replaces the database with the backup, keeps the old one as .before-restore', async () => {
    const { database, backup } = await databaseWithBackup(5, 2);
    expect(countOf(database, 'properties')).toBe(5);
    const result = await command('restore', ['--', backup], database);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `restored ${backup} into ${database}; the replaced database is kept as ${database}.before-restore\n`,
    );
    expect(countOf(database, 'properties')).toBe(2);
    expect(countOf(`${database}.before-restore`, 'properties')).toBe(5);
    expect(statSync(database).mode & 0o777).toBe(0o600);
    expect(statSync(`${database}.before-restore`).mode & 0o777).toBe(0o600);
  }, 30_000);

  test('backup --out while the server runs, then restore into a fresh path', async () => {
    const dir = tempDir();
    const database = join(dir, 'app.db');
    const port = freePort();
    const server = await startServer(port, { DATABASE_PATH: database });
    try {
      const out = join(dir, 'copy.db.gz');
      const backup = await command('backup', ['--out', out], database);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(new RegExp(`^backup written: ${out} \\(\\d+ bytes`));
      const fresh = join(tempDir(), 'restored.db');
      const restored = await command('restore', [out], fresh);
      expect(restored.code).toBe(0);
      expect(restored.stdout).toBe(`restored ${out} into ${fresh}\n`);
      expect(countOf(fresh, '__drizzle_migrations')).toBeGreaterThan(0);
    } finally {
      server.kill();
      await server.exited;
    }
  }, 30_000);
});

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'error: refusals leave the database as it was', () => {
  test('while a server has the database open → exit 1, one line', async () => {
    const { database, backup } = await databaseWithBackup(3, 1);
    const port = freePort();
    const server = await startServer(port, { DATABASE_PATH: database });
    try {
      const result = await command('restore', [backup], database);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `restore refused: ${database} is in use by another process (is the server running? stop it first)\n`,
      );
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
    } finally {
      server.kill();
      await server.exited;
    }
    expect(countOf(database, 'properties')).toBe(3);
    expect(existsSync(`${database}.before-restore`)).toBe(false);
  }, 30_000);

  test.each([
    [
      'a text file',
      'notes.txt',
      () => 'hello',
      (f: string) => `${f} is neither a backup (gzip) nor a SQLite database`,
    ],
    [
      'a gzip of text',
      'text.gz',
      () => Bun.gzipSync('hello'),
      (f: string) => `${f} does not hold a SQLite database`,
    ],
    [
      'a truncated gzip',
      'cut.db.gz',
      (backup: string) => readFileSync(backup).subarray(0, 200),
      (f: string) => `${f} is not a valid gzip file: `,
    ],
  ])(
    '%s → exit 1, one line naming the file',
    async (_label, name, make, message) => {
      const { database, backup } = await databaseWithBackup(3, 1);
      const file = join(tempDir(), name);
      writeFileSync(file, make(backup));
      const before = readFileSync(database);
      const result = await command('restore', [file], database);
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`restore refused: ${message(file)}`);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(readFileSync(database).equals(before)).toBe(true);
      expect(existsSync(`${database}.before-restore`)).toBe(false);
    },
    30_000,
  );

  test('a corrupt database → exit 1, the integrity check named', async () => {
    const { database } = await databaseWithBackup(3, 1);
    const corrupt = join(tempDir(), 'corrupt.db');
    const source = new Database(corrupt, { create: true });
    source.exec('CREATE TABLE __drizzle_migrations (id, hash, created_at)');
    source.exec('CREATE TABLE t (a TEXT)');
    source.exec('CREATE INDEX t_a ON t (a)');
    source.transaction(() => {
      for (let i = 0; i < 500; i++)
        source.run('INSERT INTO t VALUES (?)', [`row ${i} `.repeat(20)]);
    })();
    source.close();
    const bytes = readFileSync(corrupt);
    bytes.fill(0x5a, 2 * 4096 + 100);
    writeFileSync(corrupt, bytes);
    const result = await command('restore', [corrupt], database);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^restore refused: ${corrupt} (failed the integrity check|is not a readable SQLite database): .+\\n$`,
      ),
    );
    expect(countOf(database, 'properties')).toBe(3);
  }, 30_000);

  test("another application's SQLite file → exit 1", async () => {
    const { database } = await databaseWithBackup(1, 0);
    const foreign = join(tempDir(), 'foreign.db');
    const other = new Database(foreign, { create: true });
    other.exec('CREATE TABLE t (a)');
    other.close();
    const result = await command('restore', [foreign], database);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `restore refused: ${foreign} is not a database of this service (no __drizzle_migrations table)\n`,
    );
  }, 30_000);

  test('a missing file → exit 1; no argument, two arguments → exit 2', async () => {
    const { database } = await databaseWithBackup(1, 0);
    const missing = await command('restore', ['/nonexistent/backup.db.gz'], database);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('restore refused: /nonexistent/backup.db.gz: no such file\n');
    for (const [args, says] of [
      [[], 'give a FILE or --from-replica, one of them'],
      [['a', 'b'], 'unexpected argument "b"'],
    ] as const) {
      const usage = await command('restore', [...args], database);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toBe(`restore: ${says}\ntry: npm run restore -- --help\n`);
    }
  }, 30_000);

  test('backup: no database at DATABASE_PATH → exit 1', async () => {
    const database = join(tempDir(), 'none.db');
    const result = await command('backup', [], database);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`no database at DATABASE_PATH (${database})\n`);
    expect(existsSync(database)).toBe(false);
  }, 30_000);
});
