import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { ARGV_PASSWORD_WARNING } from '../../scripts/read-password';
import { createTestApp, tempDir } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

const root = join(import.meta.dir, '..', '..');
const PASSWORD = 'correct horse battery staple';

/** `bun run user:create` as an operator runs it, with `stdin` piped in. */
async function userCreate(args: string[], stdin: string) {
  const databasePath = join(tempDir(), 'app.db');
  const proc = Bun.spawn([process.execPath, 'scripts/user-create.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_PATH: databasePath, JWT_SECRET: '', LOG_LEVEL: 'silent' },
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const code = await proc.exited;
  const stdout = await new Response(proc.stdout).text();
  const stderr = await new Response(proc.stderr).text();
  return { code, stdout, stderr, databasePath };
}

/** Signs in against the database the command wrote. */
async function signIn(databasePath: string, email: string, password: string) {
  const ctx = createTestApp({ env: { DATABASE_PATH: databasePath } });
  return (await ctx.request('POST', '/auth/sign-in', { body: { email, password } })).status;
}

sqliteOnly.describe('the script writes the SQLite file', 'bun run user:create', () => {
  test('reads the password from the first line of stdin', async () => {
    const run = await userCreate(
      ['--email', 'ops@example.com', '--role', 'employee'],
      `${PASSWORD}\nsecond line ignored\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ email: 'ops@example.com', role: 'employee' });
    expect(run.stdout).not.toContain(PASSWORD);
    expect(await signIn(run.databasePath, 'ops@example.com', PASSWORD)).toBe(200);
    expect(await signIn(run.databasePath, 'ops@example.com', 'second line ignored')).toBe(401);
  });

  test('a CRLF line ending and a missing final newline are fine', async () => {
    for (const stdin of [`${PASSWORD}\r\n`, PASSWORD]) {
      const run = await userCreate(['--email', 'crlf@example.com'], stdin);
      expect(run.code).toBe(0);
      expect(await signIn(run.databasePath, 'crlf@example.com', PASSWORD)).toBe(200);
    }
  });

  test('a short or empty password is refused and nothing is written', async () => {
    for (const stdin of ['short\n', '']) {
      const run = await userCreate(['--email', 'short@example.com'], stdin);
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n')[0]).toBe('password must be at least 8 characters');
      expect(await signIn(run.databasePath, 'short@example.com', 'short')).toBe(401);
    }
  });

  test('--password still works but warns that it is visible to other users', async () => {
    const run = await userCreate(['--email', 'argv@example.com', '--password', PASSWORD], '');
    expect(run.code).toBe(0);
    expect(run.stderr.trim()).toBe(ARGV_PASSWORD_WARNING);
    expect(await signIn(run.databasePath, 'argv@example.com', PASSWORD)).toBe(200);
  });
});
