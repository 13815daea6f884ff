import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { insertUser } from '@/accounts/users';
import { usageOf } from '../../scripts/cli';
import { OPERATOR_COMMANDS, tokenCommand } from '../../scripts/commands';
import { tempDir } from '../support/harness';
import { runScript } from '../support/script';
import { COMMAND_DATABASES } from './databases';

const root = join(import.meta.dir, '..', '..');
const packageScripts = (await Bun.file(join(root, 'package.json')).json()).scripts as Record<
  string,
  string
>;

/** The file package.json runs for the npm script `name`: `bun scripts/<file>`. */
function fileOf(name: string): string {
  const match = /^bun scripts\/([\w-]+\.ts)$/.exec(packageScripts[name] ?? '');
  if (!match) throw new Error(`package.json: ${name} is not "bun scripts/<file>.ts"`);
  return match[1]!;
}

/** A command on a database file nothing has made yet; stdin is closed. */
async function run(name: string, ...args: string[]) {
  const dir = tempDir();
  const databasePath = join(dir, 'app.db');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_PATH: databasePath,
  };
  return { ...(await runScript(fileOf(name), args, env)), dir };
}

describe('operator commands: --help, and bad usage exits 2', () => {
  test('every script of package.json that runs scripts/ is described (but the checks)', () => {
    const operatorNames = Object.entries(packageScripts)
      .filter(([name, line]) => line.startsWith('bun scripts/') && !name.startsWith('check:'))
      .map(([name]) => name);
    expect(OPERATOR_COMMANDS.map((spec) => spec.name).sort()).toEqual(operatorNames.sort());
    for (const spec of OPERATOR_COMMANDS) expect(fileOf(spec.name)).toEndWith('.ts');
  });

  for (const spec of OPERATOR_COMMANDS) {
    test(`${spec.name} --help: exit 0, the help on stdout, nothing written`, async () => {
      const { code, stdout, stderr, dir } = await run(spec.name, '--help');
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const lines = stdout.split('\n');
      expect(lines[0]).toBe(spec.summary);
      expect(lines[2]).toBe(`usage: ${usageOf(spec)}`);
      expect(usageOf(spec)).toStartWith(`npm run ${spec.name}`);
      for (const option of Object.keys(spec.options)) expect(stdout).toContain(`  --${option}`);
      for (const variable of Object.keys(spec.variables))
        expect(stdout).toContain(`  ${variable}  `);
      expect(stdout).toContain('exit status: 0 done, 1 failed, 2 bad usage');
      expect(stdout).not.toContain('bun run');
      // No configuration was read: no generated jwt-secret, no database.
      expect(readdirSync(dir)).toEqual([]);
    });

    test(`${spec.name} --no-such-option: exit 2, one line naming it`, async () => {
      const { code, stdout, stderr, dir } = await run(spec.name, '--no-such-option');
      expect({ code, stdout, stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: `${spec.name}: unknown option --no-such-option\ntry: npm run ${spec.name} -- --help`,
      });
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  test('-h is --help', async () => {
    const { code, stdout } = await run('token', '-h');
    expect(code).toBe(0);
    expect(stdout).toStartWith(
      `${tokenCommand.summary}\n\nusage: npm run token -- (--email EMAIL | --sub ID)`,
    );
  });

  test('build --help builds nothing', async () => {
    const dist = join(root, 'dist');
    const before = existsSync(dist) ? readdirSync(dist).sort() : [];
    const { code, stdout } = await run('build', '--help');
    expect(code).toBe(0);
    expect(stdout).toStartWith('Builds dist/listings-service');
    expect(existsSync(dist) ? readdirSync(dist).sort() : []).toEqual(before);
  });

  test('user:create --role admin is refused before the password is read', async () => {
    // stdin stays open and empty: reading the password would wait for ever.
    const proc = Bun.spawn(
      [process.execPath, 'scripts/user-create.ts', '--email', 'ops@example.com', '--role', 'admin'],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', DATABASE_PATH: join(tempDir(), 'app.db') },
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    const code = await proc.exited;
    expect(code).toBe(2);
    expect(await new Response(proc.stderr).text()).toBe(
      'user:create: --role must be customer or employee (got "admin")\ntry: npm run user:create -- --help\n',
    );
    expect(await new Response(proc.stdout).text()).toBe('');
  });

  test.each([
    ['user:create', ['--role', 'employee'], '--email is required'],
    [
      'user:create',
      ['--email', 'not-an-email'],
      '--email must be an email address (got "not-an-email")',
    ],
    ['user:password', ['--email'], '--email needs a value (--email EMAIL)'],
    ['user:disable', ['--email', 'a@example.com', '--enable=yes'], '--enable takes no value'],
    ['backup', ['--out'], '--out needs a value (--out FILE)'],
    ['pages:import', [], 'missing DIR'],
    ['seed', ['--properties', 'many'], '--properties must be a whole number (got "many")'],
    ['seed', ['--units-per-property', '5-2'], '--units-per-property must be a number of units'],
    ['demo', ['extra'], 'unexpected argument "extra"'],
  ])('%s %j: exit 2 naming it, nothing written', async (name, args, says) => {
    const { code, stdout, stderr, dir } = await run(name, ...args);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    const [line, hint, ...rest] = stderr.split('\n');
    expect(line).toStartWith(`${name}: ${says}`);
    expect([hint, rest]).toEqual([`try: npm run ${name} -- --help`, []]);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('invalid configuration stays exit 1 with its one line', async () => {
    const run = await runScript('token.ts', ['--sub', 'x', '--aud', 'customer'], {
      DATABASE_PATH: join(tempDir(), 'app.db'),
      PORT: 'eighty',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith('Invalid configuration: PORT');
    expect(run.stderr.split('\n')).toHaveLength(1);
  });
});

COMMAND_DATABASES[0]!.describe('token: the audience and the role of the account', () => {
  test('a customer account: --aud employee exit 2, with --allow-role-mismatch exit 0 and a warning', async () => {
    const fresh = await COMMAND_DATABASES[0]!.fresh();
    const database = await fresh.open();
    const user = (await insertUser(database.stores.accounts, {
      email: 'buyer@example.com',
      password: 'long enough',
      role: 'customer',
    }))!;
    await database.close();
    const refused = await runScript(
      'token.ts',
      ['--email', 'buyer@example.com', '--aud', 'employee'],
      fresh.env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`buyer@example.com (${user.id}) is a customer`);
    expect(refused.stderr).toContain('--allow-role-mismatch');
    const insisted = await runScript(
      'token.ts',
      ['--email', 'buyer@example.com', '--aud', 'employee', '--allow-role-mismatch'],
      fresh.env,
    );
    expect(insisted.code).toBe(0);
    expect(insisted.stdout.split('.')).toHaveLength(3);
    expect(insisted.stderr).toStartWith('token: WARNING: --allow-role-mismatch:');
  });
});
