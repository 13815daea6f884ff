/**
 * The README's "A five-minute tour", run line by line as a newcomer with
 * only Node.js and npm would: `npm start` in the background, then every
 * other line of the tour's shell blocks in order in one bash session (so
 * `API=` and `TOKEN=` carry over), on a PATH without node_modules/.bin.
 * Each command must exit 0 and answer what the comment under it says. The
 * README's placeholders (`01a2…`) become the values the tour printed before
 * them. Spawns npm and the demo (seconds each), hence a slow suite.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, commandsOf, nodeOnlyPath } from '../support/doc-commands';
import { tempDir } from '../support/harness';
import { accepting, freePort } from './support';

const root = join(import.meta.dir, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const path = nodeOnlyPath();
const npm = Bun.which('npm', { PATH: path });
const curl = Bun.which('curl', { PATH: path });

/** The lines of the tour's shell blocks, in order. */
function tourCommands(): Command[] {
  const lines = readme.split('\n');
  const start = lines.indexOf('## A five-minute tour') + 1;
  const length = lines.slice(start).findIndex((line) => line.startsWith('## '));
  const end = length === -1 ? lines.length : start + length;
  return commandsOf('README.md', readme).filter(
    (command) => command.inBlock && command.line > start && command.line <= end,
  );
}

/**
 * Each placeholder of the tour's commands and where its value was printed
 * earlier in the tour: the last match of `from` in the outputs so far.
 */
const PLACEHOLDERS: Record<string, { means: string; from: RegExp }> = {
  'eyJ…': {
    means: "the token printed last: the demo's employee token, later the sign-in's accessToken",
    from: /^ +employee +(eyJ[\w.-]+)$|"accessToken":"(eyJ[\w.-]+)"/gm,
  },
  '01a2…': {
    means: "the property's id in the create's Location",
    from: /^location: \/\S*\/([\w-]+)\r?$/gim,
  },
  '24ov…': {
    means: 'the ETag of the last read, inside its quotes',
    from: /^etag: (?:W\/)?"([^"]+)"\r?$/gim,
  },
};
const placeholdersOf = (text: string) => text.match(/[\w-]*…/g) ?? [];

/** What curl answered: the harness's `-w` adds the status as a last line. */
const STATUS_LINE = /\n__http_code__ (\d{3})\n$/;
/** A status the comment names: `HTTP/1.1 201 Created`, `304`, `"status":422`. */
const SAID_STATUS = /^HTTP\/\S+ (\d{3})\b|^(\d{3})\b|"status":(\d{3})\b/;
/** A header the comment shows for a `curl -i`: `ratelimit-policy: 120;w=60`. */
const SAID_HEADER = /^([A-Za-z][\w-]*): (\S+)/;
/** A member with a literal value the comment shows: `"role":"employee"`, `"total":0`. */
const SAID_MEMBER = /"[\w:]+":(?:"[^"…]*"|-?\d+|true|false|null)(?=[,}\]])/g;

interface Ran {
  command: Command;
  ran: string;
  code: number;
  out: string;
  err: string;
}

/** One bash session on `env`; `run` sends a command and resolves with its exit code and output. */
function bashSession(dir: string, env: Record<string, string>) {
  const bash = Bun.spawn(['bash', '--noprofile', '--norc'], {
    cwd: root,
    env,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const stderr = new Response(bash.stderr).text();
  const reader = bash.stdout.getReader();
  const decoder = new TextDecoder();
  let printed = '';
  const send = (text: string) => {
    bash.stdin.write(text);
    bash.stdin.flush();
  };
  // Each command's failure shows as its exit code; curl prints the status it got.
  send(
    `set -o pipefail\ncurl() { command curl -sS -w '\\n__http_code__ %{http_code}\\n' "$@"; }\n`,
  );
  let count = 0;
  return {
    async run(text: string) {
      const n = count++;
      const files = { out: join(dir, `out.${n}`), err: join(dir, `err.${n}`) };
      send(`{\n${text}\n} </dev/null >'${files.out}' 2>'${files.err}'; echo "__exit__ ${n} $?"\n`);
      const done = new RegExp(`__exit__ ${n} (\\d+)\\n`);
      let match = done.exec(printed);
      while (match === null) {
        const { value, done: closed } = await reader.read();
        if (closed) throw new Error(`bash ended before command ${n}: ${await stderr}`);
        printed += decoder.decode(value);
        match = done.exec(printed);
      }
      return {
        code: Number(match[1]),
        out: readFileSync(files.out, 'utf8'),
        err: readFileSync(files.err, 'utf8'),
      };
    },
    async close() {
      bash.stdin.end();
      await bash.exited;
    },
  };
}

describe.skipIf(!npm || !curl)("README's five-minute tour", () => {
  const commands = tourCommands();

  test('the tour starts with `npm start &` and knows each of its placeholders', () => {
    expect(commands[0]?.text).toBe('npm start &');
    expect(commands.length).toBeGreaterThan(10);
    const unknown = commands
      .flatMap((command) => placeholdersOf(command.text))
      .filter((placeholder) => !(placeholder in PLACEHOLDERS));
    expect(unknown).toEqual([]);
    // Each known one is still in the tour: a stale row would hide a renamed placeholder.
    const used = new Set(commands.flatMap((command) => placeholdersOf(command.text)));
    expect(Object.keys(PLACEHOLDERS).filter((key) => !used.has(key))).toEqual([]);
  });

  test('every line runs on a Node-only PATH, exits 0 and answers what its comment says', async () => {
    const started = performance.now();
    const dir = tempDir();
    const home = join(dir, 'home');
    mkdirSync(home);
    const port = freePort();
    const env = {
      PATH: path,
      HOME: home,
      PORT: String(port),
      DATABASE_PATH: join(dir, 'app.db'),
      WORKERS: 'off',
      npm_config_update_notifier: 'false',
    };
    const server = Bun.spawn([npm!, 'start'], {
      cwd: root,
      env,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const serverOutput = Promise.all([
      new Response(server.stdout).text(),
      new Response(server.stderr).text(),
    ]).then(([out, err]) => `${out}${err}`);
    const session = bashSession(dir, env);
    const ran: Ran[] = [];
    let byLocation: { location: string; status: number; body: string } | undefined;
    try {
      // 300 polls of 100 ms: npm, then Bun's start and the migrations.
      let health = 0;
      for (let poll = 0; poll < 300 && health !== 200 && server.exitCode === null; poll++) {
        health = await fetch(`http://127.0.0.1:${port}/health`).then(
          (response) => response.status,
          () => 0,
        );
        if (health !== 200) await Bun.sleep(100);
      }
      expect(health).toBe(200);

      // Like `set -e`: the first command that fails ends the tour.
      for (const command of commands.slice(1)) {
        if (ran.some((run) => run.code !== 0)) break;
        let text = command.text;
        const printed = ran.map((earlier) => earlier.out).join('\n');
        const unresolved: string[] = [];
        for (const placeholder of placeholdersOf(text)) {
          const { means, from } = PLACEHOLDERS[placeholder]!;
          const last = [...printed.matchAll(from)].at(-1);
          const value = last?.slice(1).find((group) => group !== undefined);
          if (value === undefined) unresolved.push(`${placeholder} (${means}) was not printed`);
          else text = text.replaceAll(placeholder, value);
        }
        const result =
          unresolved.length > 0
            ? { code: -1, out: '', err: unresolved.join('; ') }
            : await session.run(text);
        ran.push({ command, ran: text, ...result });
      }
      // The create's Location, read while the server runs (checked below).
      const location = ran
        .map((run) => /^location: (\S+)\r?$/im.exec(run.out.split('\r\n\r\n')[0]!)?.[1])
        .find((value) => value !== undefined);
      if (location?.startsWith('/')) {
        const response = await fetch(`http://127.0.0.1:${port}${location}`);
        byLocation = { location, status: response.status, body: await response.text() };
      }
    } finally {
      await session.close();
      server.kill('SIGTERM');
    }
    // 50 polls of 100 ms: the 5 s a stop may take.
    let free = false;
    for (let poll = 0; poll < 50 && !free; poll++) {
      free = server.exitCode !== null && !(await accepting(port));
      if (!free) await Bun.sleep(100);
    }
    const log = await serverOutput;
    expect({ free, log: free ? '' : log }).toEqual({ free: true, log: '' });

    const where = ({ command }: Ran) => `README.md:${command.line}: ${command.text}`;
    const failed = ran
      .filter((run) => run.code !== 0)
      .map((run) => ({ where: where(run), code: run.code, err: run.err }));
    expect(failed).toEqual([]);

    const answers = ran.map((run) => {
      const status = STATUS_LINE.exec(run.out);
      const answer = run.out.replace(STATUS_LINE, '');
      // `curl -i` prints the status line and headers first, then a blank line.
      const split = answer.startsWith('HTTP/') ? answer.indexOf('\r\n\r\n') : -1;
      const headers = split === -1 ? '' : answer.slice(0, split);
      const body = split === -1 ? answer : answer.slice(split + 4);
      return { run, status: status ? Number(status[1]) : undefined, body, headers };
    });
    const saidWrong = answers.flatMap(({ run, status, body, headers }) => {
      const wrong: string[] = [];
      const said = run.command.said;
      const saidStatus = said.map((line) => SAID_STATUS.exec(line)).find((match) => match);
      const expected = saidStatus?.slice(1).find((group) => group !== undefined);
      if (/^curl /.test(run.command.text)) {
        if (expected !== undefined && status !== Number(expected)) {
          wrong.push(`status ${status}, the README says ${expected}`);
        }
        // Without a status in the comment the prose promises success.
        if (expected === undefined && !(status !== undefined && status >= 200 && status < 300)) {
          wrong.push(`status ${status}, not 2xx`);
        }
      }
      for (const line of said) {
        const header = run.command.text.startsWith('curl -i') ? SAID_HEADER.exec(line) : null;
        if (header) {
          const value = new RegExp(`^${header[1]}: (.*)$`, 'im').exec(headers)?.[1];
          const prefix = header[2]!.split('…')[0]!;
          if (!value?.startsWith(prefix)) wrong.push(`header ${header[1]}: ${value}`);
        }
        for (const key of line.match(/"[\w:]+":/g) ?? []) {
          if (!body.includes(key)) wrong.push(`no ${key} in the answer`);
        }
        for (const member of line.match(SAID_MEMBER) ?? []) {
          if (!body.includes(member)) wrong.push(`no ${member} in the answer`);
        }
      }
      return wrong.length === 0 ? [] : [{ where: where(run), wrong, out: run.out }];
    });
    expect(saidWrong).toEqual([]);

    // What the prose promises beyond the comments.
    const answerTo = (pattern: RegExp) => {
      const found = answers.find(({ run }) => pattern.test(run.command.text));
      expect({ pattern: String(pattern), found: found !== undefined }).toEqual({
        pattern: String(pattern),
        found: true,
      });
      return found!;
    };
    const created = answerTo(/^curl -i -X POST "\$API\/listings\/properties"/);
    expect(created.status).toBe(201);
    const location = /^location: (\S+)\r?$/im.exec(created.headers)?.[1];
    expect(byLocation?.location).toBe(location!);
    const id = location!.split('/').at(-1)!;
    expect([byLocation?.status, JSON.parse(byLocation!.body).id]).toEqual([200, id]);
    const list = answerTo(/^curl "\$API\/listings\/properties\?/);
    expect((JSON.parse(list.body) as { count: number }).count).toBeGreaterThanOrEqual(1);
    const reads = answers.filter(({ run }) => run.ran.includes(`/listings/properties/${id}"`));
    expect(reads.map((read) => read.status)).toEqual([200, 304]);
    expect(answerTo(/"castle"/).status).toBe(422);
    const page = answerTo(/^curl "\$API\/content\/static-pages\/about"$/);
    expect([page.status, page.body]).toEqual([200, expect.stringContaining('About us')]);
    for (const call of [
      /\/auth\/sign-up"/,
      /\/auth\/sign-in"/,
      /\/api\/v1\/tokens/,
      /\/api\/v1\/c\//,
    ]) {
      expect(answerTo(call).status).toBeWithin(200, 300);
    }
    console.log(
      `tour: ${ran.length + 1} commands (npm start and ${ran.length} in one bash session) in ${Math.round(performance.now() - started)} ms`,
    );
  }, 240_000);
});
