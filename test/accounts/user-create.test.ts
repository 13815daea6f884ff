import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { ARGV_PASSWORD_WARNING } from '../../scripts/read-password';
import { COMMAND_DATABASES, type FreshDatabase } from '../scripts/databases';
import { createTestApp } from '../support/harness';

const root = join(import.meta.dir, '..', '..');
const PASSWORD = 'correct horse battery staple';

/** `bun run user:create` as an operator runs it, with `stdin` piped in. */
async function userCreate(fresh: FreshDatabase, args: string[], stdin: string) {
  const proc = Bun.spawn([process.execPath, 'scripts/user-create.ts', ...args], {
    cwd: root,
    env: { ...fresh.env, LOG_LEVEL: 'silent' },
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const code = await proc.exited;
  const stdout = await new Response(proc.stdout).text();
  const stderr = await new Response(proc.stderr).text();
  return { code, stdout, stderr };
}

/** Signs in through the service's pipeline, against the accounts the command wrote. */
async function signIn(fresh: FreshDatabase, email: string, password: string) {
  const { stores } = await fresh.open();
  const ctx = createTestApp({
    env: { DATABASE_PATH: fresh.databasePath },
    stores: { accounts: stores.accounts },
  });
  return (await ctx.request('POST', '/auth/sign-in', { body: { email, password } })).status;
}

for (const target of COMMAND_DATABASES) {
  target.describe('bun run user:create', () => {
    test('reads the password from the first line of stdin', async () => {
      const fresh = await target.fresh();
      const run = await userCreate(
        fresh,
        ['--email', 'ops@example.com', '--role', 'employee'],
        `${PASSWORD}\nsecond line ignored\n`,
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toMatchObject({ email: 'ops@example.com', role: 'employee' });
      expect(run.stdout).not.toContain(PASSWORD);
      expect(await signIn(fresh, 'ops@example.com', PASSWORD)).toBe(200);
      expect(await signIn(fresh, 'ops@example.com', 'second line ignored')).toBe(401);
    });

    test('a CRLF line ending and a missing final newline are fine', async () => {
      for (const stdin of [`${PASSWORD}\r\n`, PASSWORD]) {
        const fresh = await target.fresh();
        const run = await userCreate(fresh, ['--email', 'crlf@example.com'], stdin);
        expect(run.code).toBe(0);
        expect(await signIn(fresh, 'crlf@example.com', PASSWORD)).toBe(200);
      }
    });

    test('a short or empty password is refused and nothing is written', async () => {
      for (const stdin of ['short\n', '']) {
        const fresh = await target.fresh();
        const run = await userCreate(fresh, ['--email', 'short@example.com'], stdin);
        expect(run.code).toBe(1);
        expect(run.stderr.split('\n')[0]).toBe('password must be at least 8 characters');
        expect(await signIn(fresh, 'short@example.com', 'short')).toBe(401);
      }
    });

    test('a taken email: exit 1, one line, and the first account is kept', async () => {
      const fresh = await target.fresh();
      const email = ['--email', 'ops@example.com'];
      expect((await userCreate(fresh, email, `${PASSWORD}\n`)).code).toBe(0);
      const again = await userCreate(fresh, ['--email', 'OPS@example.com'], 'another password\n');
      expect(again).toEqual({
        code: 1,
        stdout: '',
        stderr: 'a user with email OPS@example.com exists\n',
      });
      expect(await signIn(fresh, 'ops@example.com', PASSWORD)).toBe(200);
    });

    test('--password still works but warns that it is visible to other users', async () => {
      const fresh = await target.fresh();
      const run = await userCreate(
        fresh,
        ['--email', 'argv@example.com', '--password', PASSWORD],
        '',
      );
      expect(run.code).toBe(0);
      expect(run.stderr.trim()).toBe(ARGV_PASSWORD_WARNING);
      expect(await signIn(fresh, 'argv@example.com', PASSWORD)).toBe(200);
    });
  });
}
