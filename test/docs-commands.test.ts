import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, commandsOf, nodeOnlyPath, withoutAssignments } from './support/doc-commands';
import { tempDir } from './support/harness';

/**
 * Every command the documents show a reader must run where only Node.js and
 * npm are installed: Bun lives in node_modules/.bin, which is on the PATH of
 * an npm script but not of the reader's shell. Inside the image (oven/bun, no
 * npm) the same scripts are `bun run …`, so a command in a container context
 * may start with `bun`.
 */

const root = join(import.meta.dir, '..');

/** The documents whose commands a reader copies; of the changelog, only what is not yet released. */
function documents(): { file: string; text: string }[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const files = ['README.md', 'SECURITY.md', ...docs];
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  const changelog = read('CHANGELOG.md');
  const released = changelog.search(/^## (?!Unreleased)/m);
  return [
    ...files.map((file) => ({ file, text: read(file) })),
    { file: 'CHANGELOG.md', text: released === -1 ? changelog : changelog.slice(0, released) },
  ];
}

/** The simple commands of a command line: split at pipes, `&&`, `||`, `;`, `&` and `$(`. */
function simpleCommands(command: string): string[] {
  return command
    .split(/\|\||&&|\||;|&(?!&)|\$\(/)
    .map((part) => withoutAssignments(part.replace(/^\s*\(+/, '')))
    .filter((part) => part !== '');
}

const all = documents().flatMap(({ file, text }) => commandsOf(file, text));
const where = (command: Command) => `${command.file}:${command.line}: ${command.text}`;

const rootScripts: Record<string, string> = JSON.parse(
  readFileSync(join(root, 'package.json'), 'utf8'),
).scripts;
const clientScripts: Record<string, string> = JSON.parse(
  readFileSync(join(root, 'client', 'package.json'), 'utf8'),
).scripts;

/** Every `npm run NAME` of the documents, with the command it is in. */
const npmRuns = all.flatMap((command) =>
  [...command.text.matchAll(/\bnpm run(?: --silent| -s)? ([\w:.-]+)/g)].map(([, name]) => ({
    name: name!,
    command,
  })),
);

/**
 * The operator commands: scripts of `scripts/` that take flags and print a
 * usage line. Each documented one is run with `--help` on a Node-only PATH.
 */
const OPERATOR_SCRIPTS = [
  'backup',
  'demo',
  'mail:test',
  'migrate-to-postgres',
  'pages:import',
  'restore',
  'seed',
  'token',
  'user:create',
  'user:disable',
  'user:password',
  'user:verify',
] as const;
/** Scripts of `scripts/` that are not operator commands (checks, the binary build). */
const OTHER_SCRIPT_FILES = ['build', 'check:layers', 'check:references'];

/** Runs `command` with sh on a Node-only PATH from the repository root, the database in `dir`. */
function runOnNodeOnlyPath(command: string, dir: string, stdin?: string) {
  const path = nodeOnlyPath();
  const result = Bun.spawnSync(['sh', '-c', command], {
    cwd: root,
    env: {
      PATH: path,
      HOME: process.env.HOME ?? dir,
      DATABASE_PATH: join(dir, 'app.db'),
      LOG_LEVEL: 'silent',
      npm_config_update_notifier: 'false',
    },
    stdin: stdin === undefined ? 'ignore' : Buffer.from(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  return {
    code: result.exitCode,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
  };
}

describe('commands in the documents', () => {
  test('the extraction finds the commands a reader runs', () => {
    // A broken extraction would pass every check below with nothing to check.
    const texts = all.map((command) => command.text);
    expect(texts).toContain('npm start &');
    expect(texts.some((text) => text.includes('docker exec -i listings bun run user:create'))).toBe(
      true,
    );
    expect(npmRuns.length).toBeGreaterThan(50);
  });

  test('no command starts with bun or bunx outside a container', () => {
    const offending = all
      .filter((command) => !command.inContainer)
      .filter((command) => simpleCommands(command.text).some((part) => /^bunx?(\s|$)/.test(part)))
      .map(where);
    expect(offending).toEqual([]);
  });

  test('a flag after `npm run NAME` comes after `--` (else npm takes it for its own)', () => {
    const offending = all
      .filter((command) => /\bnpm run (?:--silent |-s )?[\w:.-]+ --(?!\s|$)/.test(command.text))
      .map(where);
    expect(offending).toEqual([]);
  });

  test('every `npm run NAME` names a script of package.json (client/package.json in client.md)', () => {
    const unknown = npmRuns
      .filter(({ name, command }) => {
        if (name in rootScripts) return false;
        return !(command.file === 'docs/client.md' && name in clientScripts);
      })
      .map(({ name, command }) => `${name} in ${where(command)}`);
    expect(unknown).toEqual([]);
  });

  test('every `npx TOOL` names a tool installed in node_modules/.bin', () => {
    const missing = all
      .flatMap((command) =>
        [...command.text.matchAll(/\bnpx ([\w.-]+)/g)].map(([, tool]) => ({
          tool: tool!,
          command,
        })),
      )
      .filter(({ tool }) => !existsSync(join(root, 'node_modules', '.bin', tool)))
      .map(({ tool, command }) => `${tool} in ${where(command)}`);
    expect(missing).toEqual([]);
  });

  test('each script of scripts/ is known as an operator command or not', () => {
    // A new operator script joins OPERATOR_SCRIPTS, so its --help is run below.
    const scriptFiles = Object.entries(rootScripts)
      .filter(([, command]) => /^bun scripts\/[\w-]+\.ts$/.test(command))
      .map(([name]) => name)
      .sort();
    expect(scriptFiles).toEqual([...OPERATOR_SCRIPTS, ...OTHER_SCRIPT_FILES].sort());
  });

  test('the PATH of the runs below has no node_modules/.bin', () => {
    const path = nodeOnlyPath();
    expect(path).not.toContain('node_modules');
    for (const folder of path.split(':')) {
      expect([folder, existsSync(join(folder, 'bun'))]).toEqual([folder, false]);
    }
  });

  const documented = OPERATOR_SCRIPTS.filter((name) => npmRuns.some((run) => run.name === name));

  test('every operator command is documented with npm run', () => {
    expect(documented).toEqual([...OPERATOR_SCRIPTS]);
  });

  for (const name of documented) {
    test(`npm run ${name} -- --help exits 0 on a Node-only PATH and writes nothing`, () => {
      const dir = tempDir();
      const result = runOnNodeOnlyPath(`npm run --silent ${name} -- --help`, dir);
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({
        name,
        code: 0,
        stderr: expect.any(String),
      });
      expect(`${result.stdout}${result.stderr}`).toContain(name);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  test("the README's tour makes an employee and a token, as written, on a Node-only PATH", () => {
    const readme = all.filter((command) => command.file === 'README.md');
    const create = readme.find((command) => /\| npm run user:create /.test(command.text));
    const token = readme.find((command) => command.text.includes('npm run --silent token'));
    expect([create?.text, token?.text]).toEqual([expect.any(String), expect.any(String)]);
    const dir = tempDir();
    const created = runOnNodeOnlyPath(create!.text, dir);
    expect([created.code, created.stderr]).toEqual([0, expect.any(String)]);
    expect(created.stdout).toContain('"role":"employee"');
    // The token line assigns TOKEN; the output a caller captures is the token alone.
    const captured = runOnNodeOnlyPath(`${token!.text} && printf '%s' "$TOKEN"`, dir);
    expect(captured.code).toBe(0);
    expect(captured.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test("the README's demo command fills a database on a Node-only PATH", () => {
    const demo = all.find(
      (command) => command.file === 'README.md' && command.text === 'npm run demo',
    );
    expect(demo?.text).toBe('npm run demo');
    const dir = tempDir();
    const result = runOnNodeOnlyPath(demo!.text, dir);
    expect([result.code, result.stderr]).toEqual([0, expect.any(String)]);
    expect(result.stdout).toContain('demo-employee@example.com');
  });
});
