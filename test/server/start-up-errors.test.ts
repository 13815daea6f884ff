import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import packageJson from '../../package.json' with { type: 'json' };
import { freePort, serverEnv } from '../accounts/server-process';
import { tempDir } from '../support/harness';

const root = join(import.meta.dir, '..', '..');

/**
 * `bun src/index.ts …args` with `env` on a free port; answers its exit code
 * and output once it exits. One that serves instead is stopped after 100
 * polls and reported with exit code null.
 */
async function run(env: Record<string, string>, args: string[] = []) {
  const port = freePort();
  const proc = Bun.spawn([process.execPath, 'src/index.ts', ...args], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: serverEnv(port, join(tempDir(), 'app.db'), env),
  });
  for (let poll = 0; poll < 100 && proc.exitCode === null; poll++) await Bun.sleep(100);
  const served = proc.exitCode === null;
  if (served) proc.kill('SIGTERM');
  const code = await proc.exited;
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code: served ? null : code, stdout, stderr: stderr.replace(/\n$/, '') };
}

/** Exit 1 and exactly `line` on stderr, nothing else there. */
function expectOneLine(result: { code: number | null; stderr: string }, line: string | RegExp) {
  expect(result.code).toBe(1);
  expect(result.stderr.split('\n')).toHaveLength(1);
  if (typeof line === 'string') expect(result.stderr).toBe(line);
  else expect(result.stderr).toMatch(line);
}

describe('start-up failures: one line on stderr, exit 1', () => {
  test('the port in use', async () => {
    const port = freePort();
    const holder = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } });
    try {
      const result = await run({ PORT: String(port) });
      expectOneLine(
        result,
        `cannot listen on 127.0.0.1:${port}: the port is in use; stop the other process or set PORT`,
      );
    } finally {
      holder.stop(true);
    }
  });

  // A file where a folder must be: no one may create a folder there, root included.
  test('a database folder that cannot be created, with the generated secret', async () => {
    const file = join(tempDir(), 'file.txt');
    writeFileSync(file, 'not a folder');
    const result = await run({ DATABASE_PATH: join(file, 'app.db') });
    expectOneLine(
      result,
      `cannot write the database folder ${file} (a part of its path is a file); make it writable by this user or set DATABASE_PATH`,
    );
  });

  test('a database folder that cannot be created, with JWT_SECRET set', async () => {
    const file = join(tempDir(), 'file.txt');
    writeFileSync(file, 'not a folder');
    const result = await run({
      DATABASE_PATH: join(file, 'app.db'),
      JWT_SECRET: 'a-test-secret-of-the-start-up-errors-0123456789',
    });
    expectOneLine(
      result,
      `cannot write the database folder ${file} (a part of its path is a file); make it writable by this user or set DATABASE_PATH`,
    );
  });

  test('a HOST that is no address of this machine', async () => {
    const result = await run({ HOST: 'not.a.host' });
    expectOneLine(
      result,
      /^cannot listen on not\.a\.host:\d+: HOST is not an address of this machine; set HOST to one \(0\.0\.0\.0: every interface, 127\.0\.0\.1: this machine only\)$/,
    );
  });

  test('a PostgreSQL that cannot be reached', async () => {
    const result = await run({
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      JWT_SECRET: 'a-test-secret-of-the-start-up-errors-0123456789',
    });
    expectOneLine(
      result,
      /^DATABASE_URL: cannot connect to 127\.0\.0\.1:1\/x: .+; check that PostgreSQL runs there and DATABASE_URL names it \(docs\/postgresql\.md\)$/,
    );
  });

  test('a Redis that cannot be reached', async () => {
    const result = await run({ REDIS_URL: 'redis://127.0.0.1:1' });
    expectOneLine(
      result,
      'REDIS_URL: cannot connect to 127.0.0.1:1 (ECONNREFUSED: nothing listens there; start Redis or correct REDIS_URL)',
    );
  });

  test('a TLS certificate file that does not exist', async () => {
    const missing = join(tempDir(), 'cert.pem');
    const result = await run({ TLS_CERT_PATH: missing, TLS_KEY_PATH: `${missing}.key` });
    expectOneLine(
      result,
      `TLS_CERT_PATH: cannot read ${missing} (no such file); set it to a readable PEM file`,
    );
  });

  test('an unexpected error: one line, and its stack only at LOG_LEVEL=debug', async () => {
    const databasePath = join(tempDir(), 'app.db');
    writeFileSync(databasePath, 'x'.repeat(4096));
    const env = {
      DATABASE_PATH: databasePath,
      JWT_SECRET: 'a-test-secret-of-the-start-up-errors-0123456789',
    };
    const line = 'cannot start: file is not a database; LOG_LEVEL=debug prints where it failed';
    expectOneLine(await run(env), line);
    const debug = await run({ ...env, LOG_LEVEL: 'debug' });
    expect(debug.code).toBe(1);
    const [first, ...stack] = debug.stderr.split('\n');
    expect(first).toBe(line);
    expect(stack.some((frame) => frame.includes('src/db/sqlite/client.ts'))).toBe(true);
  });
});

describe('the command line', () => {
  test('--version prints the package version, exit 0', async () => {
    const result = await run({}, ['--version']);
    expect(result).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: '' });
  });

  test('--help says what it is, how to start it, the main variables and the docs; opens no database', async () => {
    const folder = tempDir();
    const result = await run({ DATABASE_PATH: join(folder, 'db', 'app.db') }, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toStartWith(`listings-service ${packageJson.version}: `);
    for (const part of [
      'npm start',
      'SIGTERM',
      'PORT=3000',
      'HOST=0.0.0.0',
      'DATABASE_PATH=',
      '/docs',
      'docs/operations.md',
    ]) {
      expect([part, result.stdout.includes(part)]).toEqual([part, true]);
    }
    // Neither the database nor the secret file beside it was created.
    expect(await Bun.file(join(folder, 'db', 'jwt-secret')).exists()).toBe(false);
    expect(await Bun.file(join(folder, 'db', 'app.db')).exists()).toBe(false);
  });

  test('an unknown argument: one line, exit 2, nothing opened', async () => {
    const folder = tempDir();
    const result = await run({ DATABASE_PATH: join(folder, 'app.db') }, ['--prot', '4000']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'unknown argument "--prot"; --help lists what the server accepts',
    });
    expect(await Bun.file(join(folder, 'app.db')).exists()).toBe(false);
  });
});
