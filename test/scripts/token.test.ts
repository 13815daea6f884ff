import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createUser } from '@/accounts/users';
import { TokenService } from '@/auth/tokens';
import { parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/client';
import { tempDir } from '../support/harness';
import { runScript } from '../support/script';

/** `bun run token -- …` on `databasePath`. */
const token = (databasePath: string, ...args: string[]) =>
  runScript('token.ts', args, { ...process.env, DATABASE_PATH: databasePath, JWT_SECRET: '' });

/** A database with one employee; answers its path, the user and the token verifier. */
async function withAccount() {
  const databasePath = join(tempDir(), 'app.db');
  const db = openDatabase(databasePath);
  migrateDatabase(db);
  const user = await createUser(db, {
    email: 'ops@example.com',
    password: 'long enough',
    role: 'employee',
  });
  db.$client.close();
  const tokens = new TokenService(parseConfig({ DATABASE_PATH: databasePath }).jwtSecret);
  return { databasePath, user, tokens };
}

describe('bun run token', () => {
  describe('happy', () => {
    test('--email looks the account up: its id as sub, its role as aud by default', async () => {
      const { databasePath, user, tokens } = await withAccount();
      const run = await token(databasePath, '--email', 'OPS@example.com', '--ttl', '2h');
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const caller = await tokens.verify(run.stdout);
      expect(caller).toMatchObject({ sub: user.id, aud: 'employee' });
      expect(caller!.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(7000);
    });

    test('--email with --aud issues that audience', async () => {
      const { databasePath, user, tokens } = await withAccount();
      const run = await token(databasePath, '--email', 'ops@example.com', '--aud', 'customer');
      expect(run.code).toBe(0);
      expect(await tokens.verify(run.stdout)).toMatchObject({ sub: user.id, aud: 'customer' });
    });

    test('--sub still works as before', async () => {
      const { databasePath, tokens } = await withAccount();
      const run = await token(databasePath, '--sub', 'anyone', '--aud', 'customer');
      expect(run.code).toBe(0);
      expect(await tokens.verify(run.stdout)).toMatchObject({ sub: 'anyone', aud: 'customer' });
    });
  });

  describe('error', () => {
    test('an unknown email: exit 1 and one line naming it', async () => {
      const { databasePath } = await withAccount();
      const run = await token(databasePath, '--email', 'nobody@example.com');
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `no account with email nobody@example.com in ${databasePath}`,
      });
    });

    test('no database file yet: exit 1, one line, and no file created', async () => {
      const databasePath = join(tempDir(), 'app.db');
      const run = await token(databasePath, '--email', 'ops@example.com');
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `no account with email ops@example.com: there is no database at ${databasePath}`,
      });
      expect(await Bun.file(databasePath).exists()).toBe(false);
    });

    test.each([
      [['--sub', 'x', '--email', 'ops@example.com', '--aud', 'customer']],
      [['--aud', 'customer']],
      [['--sub', 'x']],
    ])('%j is refused with the usage', async (args) => {
      const { databasePath } = await withAccount();
      const run = await token(databasePath, ...args);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toStartWith('usage: bun run token');
    });
  });
});
