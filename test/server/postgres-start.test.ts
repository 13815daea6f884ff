import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { freePort } from '../accounts/server-process';
import { tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';

const root = join(import.meta.dir, '..', '..');

interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/**
 * `bun src/index.ts` with `env`: waits until /health answers 200 or the
 * process exits; answers how it ended, its /health body and its output.
 */
async function start(env: Record<string, string>) {
  const port = freePort();
  const server = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(tempDir(), 'unused.db'),
      JWT_SECRET: 'a-test-secret-of-the-postgres-start-0123456789',
      WORKERS: 'off',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...env,
    },
  });
  const deadline = Date.now() + 20_000;
  let health: unknown;
  while (health === undefined && Date.now() < deadline && server.exitCode === null) {
    health = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => (res.ok ? res.json() : undefined),
      () => undefined,
    );
    if (health === undefined) await Bun.sleep(100);
  }
  if (server.exitCode === null) server.kill('SIGTERM');
  const code = await server.exited;
  const [stdout, stderr] = await Promise.all([
    new Response(server.stdout).text(),
    new Response(server.stderr).text(),
  ]);
  const lines = stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);
  return { code, health, lines, stdout, stderr: stderr.trim() };
}

describe('start-up with DATABASE_URL: errors', () => {
  test('a server that cannot be reached: exit 1, one line naming the variable, no password', async () => {
    const run = await start({ DATABASE_URL: 'postgres://app:s3cret-pw@127.0.0.1:1/appdb' });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).toStartWith('DATABASE_URL: cannot connect to 127.0.0.1:1/appdb: ');
    expect(run.stderr + run.stdout).not.toContain('s3cret-pw');
  });

  test('no JWT_SECRET: exit 1, one line saying every instance needs the same one', async () => {
    const run = await start({ DATABASE_URL: 'postgres://app@127.0.0.1:1/appdb', JWT_SECRET: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Invalid configuration: JWT_SECRET: must be set with DATABASE_URL, to the same value on every instance',
    );
  });

  test('not a PostgreSQL URL: exit 1, one line naming the variable, no password', async () => {
    const run = await start({ DATABASE_URL: 'mysql://app:s3cret-pw@127.0.0.1/appdb' });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).toStartWith(
      'Invalid configuration: DATABASE_URL: not a postgres:// or postgresql:// URL',
    );
    expect(run.stderr).not.toContain('s3cret-pw');
  });
});

describe.skipIf(!postgresAvailable)(pgSuite('start-up with DATABASE_URL'), () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(databases.map((database) => database.drop()));
  }, 30_000);

  /** A fresh, empty database's URL, with a password (trust auth ignores it) that must never show. */
  async function emptyDatabase() {
    const database = await createTestDatabase();
    databases.push(database);
    const url = new URL(database.url);
    url.password = 's3cret-pw';
    return url.toString();
  }

  test('migrates an empty database, serves from it, names it in /health and the log, never the password', async () => {
    const url = await emptyDatabase();
    const run = await start({ DATABASE_URL: url });
    expect(run.health).toMatchObject({ status: 'ok', backends: { postgresql: 'ok' } });
    const migrated = run.lines.find((line) => line.msg === 'migrated');
    expect(migrated?.applied).toContain('0001_schema');
    const listening = run.lines.find((line) => line.msg === 'listening');
    const { host, pathname } = new URL(url);
    expect(listening?.database).toBe(`${host}${pathname}`);
    expect(run.stdout + run.stderr).not.toContain('s3cret-pw');
    // Started again: nothing left to migrate.
    const again = await start({ DATABASE_URL: url });
    expect(again.health).toMatchObject({ backends: { postgresql: 'ok' } });
    expect(again.lines.some((line) => line.msg === 'migrated')).toBe(false);
  });

  test('two instances started together on an empty database both serve; the migrations ran once', async () => {
    const url = await emptyDatabase();
    const [a, b] = await Promise.all([start({ DATABASE_URL: url }), start({ DATABASE_URL: url })]);
    for (const run of [a, b]) expect(run.health).toMatchObject({ status: 'ok' });
    const migratedBy = [a, b].filter((run) => run.lines.some((line) => line.msg === 'migrated'));
    expect(migratedBy).toHaveLength(1);
  });
});
