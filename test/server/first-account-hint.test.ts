import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createUser } from '@/accounts/users';
import { parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { mailWarningOf } from '@/startup/mail-notice';
import { firstAccountHint } from '@/startup/operator-commands';
import { freePort, serverEnv } from '../accounts/server-process';
import { tempDir } from '../support/harness';

const root = join(import.meta.dir, '..', '..');

/** Starts `bun src/index.ts` on `databasePath`, waits for /health, stops it; answers its log lines. */
async function startAndStop(databasePath: string, env: Record<string, string> = {}) {
  const port = freePort();
  const server = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
    env: serverEnv(port, databasePath, env),
  });
  const deadline = Date.now() + 20_000;
  let up = false;
  while (!up && Date.now() < deadline && server.exitCode === null) {
    up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (!up) await Bun.sleep(100);
  }
  server.kill('SIGTERM');
  await server.exited;
  expect(up).toBe(true);
  const text = await new Response(server.stdout).text();
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: string; msg: string });
}

describe('start-up without any account', () => {
  test('one info line says how to create the first employee or load the demo, as npm runs them', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const hints = (await startAndStop(databasePath)).filter((line) =>
      line.msg.startsWith('no account yet'),
    );
    expect(hints).toHaveLength(1);
    expect(hints[0]!.level).toBe('info');
    expect(hints[0]!.msg).toBe(
      'no account yet: create the first employee with `npm run user:create -- --email you@example.com --role employee`, or fill the database with demo data: `npm run demo`',
    );
  });

  test('in the image (LISTINGS_COMMAND_PREFIX=bun run, no npm there) the commands are bun run', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const lines = await startAndStop(databasePath, { LISTINGS_COMMAND_PREFIX: 'bun run' });
    const hint = lines.find((line) => line.msg.startsWith('no account yet'));
    expect(hint?.msg).toBe(
      'no account yet: create the first employee with `bun run user:create -- --email you@example.com --role employee`, or fill the database with demo data: `bun run demo`',
    );
  });

  test('the single binary, which has no operator commands, points at a checkout and the docs', () => {
    expect(firstAccountHint({ kind: 'none' })).toBe(
      'no account yet: this binary has no operator commands; create the first employee from a checkout with `npm run user:create -- --email you@example.com --role employee` and the same DATABASE_PATH (docs/operations.md, The binary)',
    );
  });

  test('with an account, no such line', async () => {
    const databasePath = join(tempDir(), 'app.db');
    const db = openDatabase(databasePath);
    migrateDatabase(db);
    await createUser(db, { email: 'ops@example.com', password: 'long enough', role: 'employee' });
    db.$client.close();
    const lines = await startAndStop(databasePath);
    expect(lines.some((line) => line.msg === 'listening')).toBe(true);
    expect(lines.filter((line) => line.msg.startsWith('no account yet'))).toEqual([]);
  });
});

describe('start-up with open sign-up and no SMTP server', () => {
  const warning =
    'SIGN_UP is open but SMTP_HOST is not set: mail is written to the log, not sent; set SMTP_HOST and MAIL_FROM (docs/configuration.md#mail)';

  test('one warning says mail is written to the log; none once SMTP_HOST is set', async () => {
    const without = await startAndStop(join(tempDir(), 'app.db'));
    expect(without.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({ level: 'warn', msg: warning }),
    ]);
    const withSmtp = await startAndStop(join(tempDir(), 'app.db'), {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(freePort()),
      MAIL_FROM: 'listings@example.com',
    });
    expect(withSmtp.some((line) => line.msg === 'listening')).toBe(true);
    expect(withSmtp.filter((line) => line.msg === warning)).toEqual([]);
  });

  test('with sign-up closed there is no one to warn about', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:', SIGN_UP: 'closed' });
    expect(mailWarningOf(config)).toBeUndefined();
    expect(mailWarningOf({ ...config, accounts: { ...config.accounts, signUp: 'open' } })).toBe(
      warning,
    );
    // Under verify a new account's link reaches only the log: the same warning, naming the mode.
    expect(mailWarningOf({ ...config, accounts: { ...config.accounts, signUp: 'verify' } })).toBe(
      warning.replace('SIGN_UP is open', 'SIGN_UP is verify'),
    );
  });
});
