import { expect, test } from 'bun:test';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import packageJson from '../../package.json' with { type: 'json' };
import { tempDir } from '../support/harness';
import { employeeToken, freePort, JWT_SECRET, randomProperty, seeded } from './support';

/**
 * `bun run build` makes dist/listings-service; copied alone into an empty
 * folder and started with a PATH that has no Bun, it migrates a new database
 * and serves: health, the account page and its script, a create and a read.
 */
const root = join(import.meta.dir, '..', '..');

test('the single-file binary runs without Bun or the source tree', async () => {
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: root });
  expect(build.stderr.toString()).not.toContain('error');
  expect(build.exitCode).toBe(0);
  const dir = tempDir('listings-binary-');
  const binary = join(dir, 'listings-service');
  copyFileSync(join(root, 'dist', 'listings-service'), binary);
  const size = Bun.file(binary).size;

  // Its arguments are the command line's, as `bun src/index.ts` sees them: --version, --help, exit 2 else.
  const version = Bun.spawnSync([binary, '--version'], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
  });
  expect([version.exitCode, version.stdout.toString()]).toEqual([0, `${packageJson.version}\n`]);
  const help = Bun.spawnSync([binary, '--help'], { cwd: dir, env: { PATH: '/usr/bin:/bin' } });
  expect(help.exitCode).toBe(0);
  expect(help.stdout.toString()).toContain('./dist/listings-service');
  const unknown = Bun.spawnSync([binary, '--port', '1'], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
  });
  expect(unknown.exitCode).toBe(2);

  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const server = Bun.spawn([binary], {
    cwd: dir,
    env: {
      PATH: '/usr/bin:/bin',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'data', 'app.db'),
      JWT_SECRET,
      WORKERS: 'off',
      LOG_LEVEL: 'warn',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    let ready = false;
    for (let i = 0; i < 400 && !ready; i++) {
      ready = await fetch(`${base}/health`).then(
        (res) => res.ok,
        () => false,
      );
      if (!ready) await Bun.sleep(25);
    }
    expect(ready).toBe(true);
    const startupMs = Math.round(performance.now() - started);

    const health = await fetch(`${base}/health`);
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok' });
    const page = await fetch(`${base}/account`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const script = await fetch(`${base}/account/app.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(1000);
    // The other pages' files are embedded too (src/web/page-assets.json).
    for (const [path, atLeast] of [
      ['/docs', 200],
      ['/docs/app.js', 200],
      ['/docs/swagger-ui.js', 1_000_000],
      ['/docs/swagger-ui.css', 100_000],
      ['/console', 200],
      ['/console/app.js', 40_000],
      ['/console/uplot.css', 1_000],
      ['/console/data.css', 1_000],
      ['/account/data.css', 1_000],
    ] as const) {
      const answer = await fetch(`${base}${path}`);
      expect([path, answer.status]).toEqual([path, 200]);
      expect((await answer.text()).length).toBeGreaterThan(atLeast);
    }

    const token = await employeeToken();
    const body = randomProperty(seeded(3), 'Binary street 1');
    const created = await fetch(`${base}/listings/properties`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(201);
    const read = await fetch(`${base}/listings${created.headers.get('location')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ location: { addressLine1: 'Binary street 1' } });
    console.log(
      `binary: ${(size / 1024 / 1024).toFixed(1)} MiB; start to first /health 200: ${startupMs} ms`,
    );
  } finally {
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }
}, 120_000);
