import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { LAST_EMPLOYEE_DETAIL } from '@/accounts/messages';
import { COMMAND_DATABASES, type FreshDatabase } from '../scripts/databases';
import { createTestApp } from '../support/harness';

const root = join(import.meta.dir, '..', '..');
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';

/** `bun run <script>` as an operator runs it, with `stdin` piped in. */
async function command(fresh: FreshDatabase, script: string, args: string[], stdin = '') {
  const proc = Bun.spawn([process.execPath, `scripts/${script}.ts`, ...args], {
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

/** The service on the database the commands wrote (a server running beside them). */
async function serviceOn(fresh: FreshDatabase) {
  const { stores } = await fresh.open();
  return createTestApp({
    env: { DATABASE_PATH: fresh.databasePath },
    stores: { accounts: stores.accounts },
  });
}

async function withAccount(fresh: FreshDatabase, email: string, role = 'customer') {
  const made = await command(
    fresh,
    'user-create',
    ['--email', email, '--role', role],
    `${PASSWORD}\n`,
  );
  expect(made.code).toBe(0);
}

for (const target of COMMAND_DATABASES) {
  target.describe('bun run user:password', () => {
    test('sets the password from stdin and ends every session of the account', async () => {
      const fresh = await target.fresh();
      await withAccount(fresh, 'ops@example.com');
      const ctx = await serviceOn(fresh);
      const signIn = (password: string) =>
        ctx.request('POST', '/auth/sign-in', { body: { email: 'ops@example.com', password } });
      const before = await signIn(PASSWORD);
      const cookie = before.headers.get('set-cookie')!.split(';')[0]!;
      const run = await command(
        fresh,
        'user-password',
        ['--email', 'ops@example.com'],
        `${NEW_PASSWORD}\n`,
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toMatchObject({ email: 'ops@example.com', disabled: false });
      expect(run.stdout).not.toContain(NEW_PASSWORD);
      expect((await ctx.request('GET', '/auth/me', { headers: { cookie } })).status).toBe(401);
      expect((await signIn(PASSWORD)).status).toBe(401);
      expect((await signIn(NEW_PASSWORD)).status).toBe(200);
      // A running server learns the token cut-off on its next load of them.
      const token = (before.body as { accessToken: string }).accessToken;
      expect((await ctx.request('GET', '/auth/me', { token })).status).toBe(200);
      await ctx.deps.tokenCutoffs.load();
      expect((await ctx.request('GET', '/auth/me', { token })).status).toBe(401);
    });

    test('error: a short password or an unknown email: exit 1, one line, nothing written', async () => {
      const fresh = await target.fresh();
      await withAccount(fresh, 'ops@example.com');
      const short = await command(
        fresh,
        'user-password',
        ['--email', 'ops@example.com'],
        'short\n',
      );
      expect(short.code).toBe(1);
      expect(short.stderr.split('\n')[0]).toBe('password must be at least 8 characters');
      const unknown = await command(
        fresh,
        'user-password',
        ['--email', 'nobody@example.com'],
        `${NEW_PASSWORD}\n`,
      );
      expect(unknown).toEqual({
        code: 1,
        stdout: '',
        stderr: 'no account with email nobody@example.com\n',
      });
      const ctx = await serviceOn(fresh);
      const res = await ctx.request('POST', '/auth/sign-in', {
        body: { email: 'ops@example.com', password: PASSWORD },
      });
      expect(res.status).toBe(200);
    });
  });

  target.describe('bun run user:disable', () => {
    test('disables (sign-in refused, sessions ended), then --enable lets it sign in again', async () => {
      const fresh = await target.fresh();
      await withAccount(fresh, 'staff@example.com', 'employee');
      await withAccount(fresh, 'someone@example.com');
      const ctx = await serviceOn(fresh);
      const signIn = () =>
        ctx.request('POST', '/auth/sign-in', {
          body: { email: 'someone@example.com', password: PASSWORD },
        });
      const cookie = (await signIn()).headers.get('set-cookie')!.split(';')[0]!;
      const off = await command(fresh, 'user-disable', ['--email', 'someone@example.com']);
      expect(off.code).toBe(0);
      expect(JSON.parse(off.stdout)).toMatchObject({
        email: 'someone@example.com',
        disabled: true,
      });
      expect((await signIn()).status).toBe(401);
      expect((await ctx.request('GET', '/auth/me', { headers: { cookie } })).status).toBe(401);
      const on = await command(fresh, 'user-disable', [
        '--email',
        'someone@example.com',
        '--enable',
      ]);
      expect(on.code).toBe(0);
      expect(JSON.parse(on.stdout)).toMatchObject({ disabled: false, disabledAt: null });
      expect((await signIn()).status).toBe(200);
    });

    test('error: the last active employee stays enabled: exit 1 with the reason', async () => {
      const fresh = await target.fresh();
      await withAccount(fresh, 'staff@example.com', 'employee');
      const run = await command(fresh, 'user-disable', ['--email', 'staff@example.com']);
      expect(run).toEqual({ code: 1, stdout: '', stderr: `${LAST_EMPLOYEE_DETAIL}\n` });
      const ctx = await serviceOn(fresh);
      const res = await ctx.request('POST', '/auth/sign-in', {
        body: { email: 'staff@example.com', password: PASSWORD },
      });
      expect(res.status).toBe(200);
    });
  });

  target.describe('bun run user:verify', () => {
    test('marks an address signed up under SIGN_UP=verify verified: the API answers its new tokens, the old ones end', async () => {
      const fresh = await target.fresh();
      const { stores } = await fresh.open();
      const ctx = createTestApp({
        env: { DATABASE_PATH: fresh.databasePath, SIGN_UP: 'verify' },
        stores: { accounts: stores.accounts },
      });
      const body = { email: 'new@example.com', password: PASSWORD };
      expect((await ctx.request('POST', '/auth/sign-up', { body })).status).toBe(202);
      const signIn = async () =>
        (
          await ctx.request<{ accessToken: string; user: { emailVerified: boolean } }>(
            'POST',
            '/auth/sign-in',
            { body },
          )
        ).body;
      const before = await signIn();
      expect(before.user.emailVerified).toBe(false);
      const usage = (token: string) => ctx.request('GET', '/auth/me/usage', { token });
      expect((await usage(before.accessToken)).status).toBe(403);

      const run = await command(fresh, 'user-verify', ['--email', 'new@example.com']);
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(JSON.parse(run.stdout)).toMatchObject({
        email: 'new@example.com',
        emailVerified: true,
      });
      const after = await signIn();
      expect(after.user.emailVerified).toBe(true);
      expect((await usage(after.accessToken)).status).toBe(200);
      // A running server learns the token cut-off on its next load of them.
      await ctx.deps.tokenCutoffs.load();
      expect((await usage(before.accessToken)).status).toBe(401);
      const again = await command(fresh, 'user-verify', ['--email', 'new@example.com']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ emailVerified: true });
    });

    test('error: an unknown email: exit 1, one line', async () => {
      const fresh = await target.fresh();
      const run = await command(fresh, 'user-verify', ['--email', 'nobody@example.com']);
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: 'no account with email nobody@example.com\n',
      });
    });
  });
}
