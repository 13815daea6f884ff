import { describe, expect, test } from 'bun:test';
import { insertUser } from '@/accounts/users';
import { TokenService } from '@/auth/tokens';
import { parseConfig } from '@/config';
import { runScript } from '../support/script';
import { COMMAND_DATABASES, type FreshDatabase } from './databases';

/** `npm run token -- …` on the database of `env`. */
const token = (env: Record<string, string>, ...args: string[]) => runScript('token.ts', args, env);

/** A database with one employee; answers it, the user and the token verifier. */
async function withAccount(fresh: FreshDatabase) {
  const database = await fresh.open();
  const user = await insertUser(database.stores.accounts, {
    email: 'ops@example.com',
    password: 'long enough',
    role: 'employee',
  });
  await database.close();
  const tokens = new TokenService(parseConfig(fresh.env).jwtSecret);
  return { ...fresh, user: user!, tokens };
}

for (const target of COMMAND_DATABASES) {
  target.describe('npm run token', () => {
    describe('happy', () => {
      test('--email looks the account up: its id as sub, its role as aud by default', async () => {
        const { env, user, tokens } = await withAccount(await target.fresh());
        const run = await token(env, '--email', 'OPS@example.com', '--ttl', '2h');
        expect(run).toMatchObject({ code: 0, stderr: '' });
        const caller = await tokens.verify(run.stdout);
        expect(caller).toMatchObject({ sub: user.id, aud: 'employee' });
        expect(caller!.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(7000);
      });

      test('--email with --aud of its role issues that audience', async () => {
        const { env, user, tokens } = await withAccount(await target.fresh());
        const run = await token(env, '--email', 'ops@example.com', '--aud', 'employee');
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(await tokens.verify(run.stdout)).toMatchObject({ sub: user.id, aud: 'employee' });
      });

      test('--allow-role-mismatch mints another audience, with a warning', async () => {
        const { env, user, tokens } = await withAccount(await target.fresh());
        const run = await token(
          env,
          ...['--sub', user.id, '--aud', 'customer', '--allow-role-mismatch'],
        );
        expect(run.code).toBe(0);
        expect(run.stderr).toBe(
          `token: WARNING: --allow-role-mismatch: ops@example.com (${user.id}) is an employee, and this token grants it customer access until it expires`,
        );
        expect(await tokens.verify(run.stdout)).toMatchObject({ sub: user.id, aud: 'customer' });
      });

      test('--sub still works as before', async () => {
        const { env, tokens } = await withAccount(await target.fresh());
        const run = await token(env, '--sub', 'anyone', '--aud', 'customer');
        expect(run.code).toBe(0);
        expect(await tokens.verify(run.stdout)).toMatchObject({ sub: 'anyone', aud: 'customer' });
      });
    });

    describe('error', () => {
      test('an unknown email: exit 1 and one line naming it and the database', async () => {
        const { env, where } = await withAccount(await target.fresh());
        const run = await token(env, '--email', 'nobody@example.com');
        expect(run).toEqual({
          code: 1,
          stdout: '',
          stderr: `no account with email nobody@example.com in ${where}`,
        });
      });

      test.each([
        [['--sub', 'x', '--email', 'ops@example.com', '--aud', 'customer'], 'give one of --sub'],
        [['--aud', 'customer'], 'give one of --sub'],
        [['--sub', 'x'], '--aud is required with --sub'],
        [['--sub', 'x', '--aud', 'admin'], '--aud must be customer or employee (got "admin")'],
        [['--sub', 'x', '--aud', 'customer', '--ttl', 'soon'], '--ttl must be a duration'],
      ])('%j: exit 2, one line naming the option, then where the help is', async (args, says) => {
        const { env } = await withAccount(await target.fresh());
        const run = await token(env, ...args);
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        const [line, hint, ...rest] = run.stderr.split('\n');
        expect(line).toStartWith(`token: ${says}`);
        expect([hint, rest]).toEqual(['try: npm run token -- --help', []]);
      });

      test.each([
        ['--email', 'ops@example.com'],
        ['--sub', '<id>'],
      ])(
        'an --aud other than the role of the account of %s: exit 2 saying its role',
        async (flag, value) => {
          const { env, user } = await withAccount(await target.fresh());
          const run = await token(env, flag, value.replace('<id>', user.id), '--aud', 'customer');
          expect(run).toEqual({
            code: 2,
            stdout: '',
            stderr: `token: --aud customer is not the account's role: ops@example.com (${user.id}) is an employee; add --allow-role-mismatch to mint it anyway\ntry: npm run token -- --help`,
          });
        },
      );
    });
  });
}

describe('npm run token, database by database', () => {
  test('SQLite: no database file yet: exit 1, one line, and no file created', async () => {
    const { env, databasePath } = await COMMAND_DATABASES[0]!.fresh();
    const run = await token(env, '--email', 'ops@example.com');
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `no account with email ops@example.com: there is no database at ${databasePath}`,
    });
    expect(await Bun.file(databasePath).exists()).toBe(false);
  });

  test('PostgreSQL that does not answer: one line naming DATABASE_URL, no password', async () => {
    const { env } = await COMMAND_DATABASES[0]!.fresh();
    const url = 'postgres://ops:secret-pw@127.0.0.1:1/app';
    const secret = 'a-test-secret-of-the-command-tests-0123456789';
    const run = await token(
      { ...env, DATABASE_URL: url, JWT_SECRET: secret },
      '--email',
      'ops@example.com',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toStartWith('DATABASE_URL: cannot connect to 127.0.0.1:1/app: ');
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).not.toContain('secret-pw');
  });
});
