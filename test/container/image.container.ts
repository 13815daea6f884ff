import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../accounts/server-process';
import { tempDir } from '../support/harness';
import {
  buildFlags,
  healthStatus,
  imageMegabytes,
  ok,
  podman,
  root,
  secondsSince,
  untilHealthy,
} from './podman';
import {
  ContainerRun,
  createProperty,
  exec,
  expectExitCode,
  image,
  propertyTotal,
  readStatus,
  type Started,
  stopAndRemove,
  suffix,
} from './service';

/**
 * The image as an operator runs it (docs/container.md): built from the
 * repository's Dockerfile with podman, on the `oven/bun` base where it can be
 * pulled and on a stand-in built from Debian's packages and the npm `bun`
 * package where it cannot; started on a volume with a port on 127.0.0.1;
 * every operator command the docs name run through `podman exec`; SIGTERM,
 * a new container on the same volume, a restore, the HEALTHCHECK, a
 * read-only root, compose.yaml, and an upgrade from the previous release's
 * image. Run by scripts/test-container.sh (`npm run test:container`), which
 * gives podman storage of its own and removes it afterwards.
 */
const work = tempDir('listings-container-');
const previousImage = 'localhost/listings-service:previous';
const previousRelease = process.env.CONTAINER_PREVIOUS_RELEASE ?? 'd8f55d3';
const ct = new ContainerRun();
const { figures } = ct;
const volume = `listings-ct-data-${suffix}`;
ct.volumes.push(volume);

afterAll(() => ct.removeAll());

const packageScripts = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

describe('the image', () => {
  test('builds from the Dockerfile on the oven/bun base, or on the stand-in where it cannot be pulled', async () => {
    const pulled = await podman(['pull', '--quiet', 'docker.io/oven/bun:1']);
    let started = performance.now();
    if (pulled.code === 0) {
      await ok(['podman', 'pull', '--quiet', 'docker.io/oven/bun:1-slim']);
      figures.base = 'oven/bun:1 and oven/bun:1-slim, pulled';
    } else {
      console.log(`base: oven/bun cannot be pulled (${pulled.stderr.trim().split('\n').at(-1)})`);
      const built = await ok([
        'bash',
        join(root, 'test', 'container', 'stand-in-base.sh'),
        process.execPath,
      ]);
      figures.base = built.trim();
    }
    figures['base ready (s)'] = secondsSince(started);
    figures['base size (MB)'] = await imageMegabytes('docker.io/oven/bun:1-slim');

    started = performance.now();
    await ok(['podman', 'build', ...buildFlags(work), '-t', image, '.']);
    figures['build (s)'] = secondsSince(started);
    figures['image size (MB)'] = await imageMegabytes(image);
  });

  test('runs as uid 1000 and holds the service, its operator scripts and production dependencies only', async () => {
    expect(
      (await ok(['podman', 'image', 'inspect', '--format', '{{.Config.User}}', image])).trim(),
    ).toBe('bun');
    const listing = await ok([
      'podman',
      'run',
      '--rm',
      image,
      'sh',
      '-c',
      "id -u; echo --; ls /app; echo --; ls /app/scripts; echo --; for tool in gcc cc make g++ git npm node python3 curl; do command -v $tool; done; echo --; ls /app/node_modules/.bin /app/node_modules/typescript 2>&1 | wc -l; echo --; du -sm /usr/local/bin/bun /app/node_modules /app/src | cut -f1; echo --; stat -c '%n %u:%g' /data /replica",
    ]);
    const [uid, top, scripts, tools, devModules, sizes, owners] = listing
      .split(/^--$/m)
      .map((part) => part.trim());
    expect(uid).toBe('1000');
    expect(top?.split('\n').sort()).toEqual(
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
    // Every operator command of package.json, with the modules they share; no development script.
    expect(scripts?.split('\n').sort()).toEqual(
      [
        'account-command.ts',
        'backup.ts',
        'cli.ts',
        'commands.ts',
        'database.ts',
        'demo-data.ts',
        'demo.ts',
        'mail-test.ts',
        'migrate-to-postgres.ts',
        'pages-import.ts',
        'read-password.ts',
        'restore.ts',
        'seed.ts',
        'token.ts',
        'user-create.ts',
        'user-disable.ts',
        'user-password.ts',
        'user-verify.ts',
      ].sort(),
    );
    expect(tools).toBe('');
    // Two "No such file" lines: neither folder is there.
    expect(devModules).toBe('2');
    // A new named volume takes the ownership of the image's folder it is mounted on (Docker):
    // the database volume and a replica volume (docs/container.md).
    expect(owners?.split('\n')).toEqual(['/data 1000:1000', '/replica 1000:1000']);
    const [bunMb, modulesMb, srcMb] = (sizes ?? '').split('\n');
    figures['made of (MB)'] = `bun ${bunMb}, node_modules ${modulesMb}, src ${srcMb}`;
  });
});

describe('one container on a volume, as an operator runs it', () => {
  let current: Started;
  let token = '';
  let kept = '';
  let afterBackup = '';
  let backupPath = '';
  const pages = join(work, 'pages');

  test('starts, migrates /data/app.db, and its start-up hint names commands the image has', async () => {
    mkdirSync(pages);
    writeFileSync(
      join(pages, 'welcome.en.md'),
      '---\nslug: welcome\nlanguage: en\ntitle: Welcome\nmetaTitle: Welcome\nmetaDescription: The first page.\ncategory: company\ngroup: footer\npublished: true\n---\n\n# Welcome\n',
    );
    await ok(['podman', 'volume', 'create', volume]);
    current = await ct.start('first', ['-v', `${volume}:/data`, '-v', `${pages}:/import:ro`]);
    const logs = await ok(['podman', 'logs', current.name]);
    expect(logs).toContain('"database":"/data/app.db"');
    const hint = logs.split('\n').find((line) => line.includes('no account yet'));
    const commands = [...(hint ?? '').matchAll(/bun run ([\w:-]+)/g)].map((match) => match[1]!);
    expect(commands).toEqual(['user:create', 'demo']);
    for (const command of commands) {
      const file = /^bun (scripts\/[\w-]+\.ts)$/.exec(packageScripts[command] ?? '')?.[1] ?? '-';
      expect([command, file, (await exec(current.name, ['test', '-f', file])).code]).toEqual([
        command,
        expect.stringMatching(/^scripts\//),
        0,
      ]);
    }
  });

  test('user:create (password on stdin), token, then a write and a read with that token', async () => {
    const started = performance.now();
    const created = await exec(
      current.name,
      ['bun', 'run', 'user:create', '--', '--email', 'ops@example.com', '--role', 'employee'],
      'a long operator password\n',
    );
    expect([created.code, created.stderr]).toEqual([0, expect.not.stringContaining('error')]);
    figures['user:create (s)'] = secondsSince(started);
    const user = JSON.parse(created.stdout) as { id: string; role: string };
    expect(user.role).toBe('employee');
    const minted = await exec(current.name, [
      ...['bun', 'run', '--silent', 'token', '--', '--sub', user.id],
      ...['--aud', 'employee', '--ttl', '1h'],
    ]);
    expect([minted.code, minted.stderr]).toEqual([0, '']);
    token = minted.stdout.trim();
    kept = await createProperty(current.base, token, 'Calle Mayor 5');
    expect(await readStatus(current.base, token, kept)).toBe(200);
  });

  test('pages:import from a mounted folder, backup, and restore refused while the server runs', async () => {
    const imported = await exec(current.name, ['bun', 'run', 'pages:import', '--', '/import']);
    expect([imported.code, imported.stderr]).toEqual([0, expect.not.stringContaining('error:')]);
    expect((await fetch(`${current.base}/content/static-pages/welcome?language=en`)).status).toBe(
      200,
    );

    const backup = await exec(current.name, ['bun', 'run', 'backup']);
    expect(backup.code).toBe(0);
    backupPath = /backup written: (\/data\/backups\/\S+\.db\.gz)/.exec(backup.stdout)?.[1] ?? '';
    expect(backupPath).not.toBe('');
    afterBackup = await createProperty(current.base, token, 'Calle Nueva 1');

    const refused = await exec(current.name, ['bun', 'run', 'restore', '--', backupPath]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is in use by another process');
  });

  test('demo fills the database beside the operator account', async () => {
    const before = await propertyTotal(current.base, token);
    const demo = await exec(current.name, ['bun', 'run', 'demo']);
    expect([demo.code, demo.stderr]).toEqual([0, expect.not.stringContaining('error:')]);
    expect(await propertyTotal(current.base, token)).toBeGreaterThan(before);
  });

  test('user:password and user:disable: a new password signs in, a disabled account cannot, enabled again it can', async () => {
    const email = 'someone@example.com';
    const signIn = async (password: string) =>
      (
        await fetch(`${current.base}/auth/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        })
      ).status;
    const run = async (args: string[], input?: string) => {
      const done = await exec(current.name, ['bun', 'run', ...args], input);
      expect([args[0], done.code, done.stderr]).toEqual([
        args[0],
        0,
        expect.not.stringContaining('error'),
      ]);
    };
    await run(
      ['user:create', '--', '--email', email, '--role', 'customer'],
      'first password 123\n',
    );
    await run(['user:password', '--', '--email', email], 'second password 456\n');
    expect(await signIn('second password 456')).toBe(200);
    await run(['user:disable', '--', '--email', email]);
    expect(await signIn('second password 456')).toBe(401);
    await run(['user:disable', '--', '--email', email, '--enable']);
    expect(await signIn('second password 456')).toBe(200);
  });

  test('the HEALTHCHECK reports healthy', async () => {
    expect((await podman(['healthcheck', 'run', current.name])).code).toBe(0);
    expect(await healthStatus(current.name)).toBe('healthy');
  });

  test('SIGTERM: a held long poll is answered, the process exits 0', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const after = (cursor: string | null) => (cursor === null ? '' : `&after=${cursor}`);
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res = await fetch(`${current.base}/listings/events?limit=100${after(cursor)}`, {
        headers,
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { next_cursor: string | null; has_more: boolean };
      cursor = body.next_cursor;
      if (!body.has_more) break;
    }
    const held = fetch(`${current.base}/listings/events?wait=30${after(cursor)}`, { headers });
    // Time for the request to reach the server, where it waits for an event that never comes.
    await Bun.sleep(1000);
    const started = performance.now();
    await ok(['podman', 'stop', '-t', '60', current.name]);
    figures['SIGTERM to exited (s)'] = secondsSince(started);
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: unknown[] }).data).toEqual([]);
    await expectExitCode(current.name, ['0']);
    const logs = await ok(['podman', 'logs', current.name]);
    expect(logs).toContain('"msg":"shutting down","signal":"SIGTERM"');
    expect(logs).toContain('"msg":"stopped"');
    await ok(['podman', 'rm', current.name]);
  });

  test('the data survives `rm` and a new container on the same volume: rows, pages, the account and its token', async () => {
    current = await ct.start('second', ['-v', `${volume}:/data`]);
    expect(await readStatus(current.base, token, kept)).toBe(200);
    expect(await readStatus(current.base, token, afterBackup)).toBe(200);
    expect((await fetch(`${current.base}/content/static-pages/welcome?language=en`)).status).toBe(
      200,
    );
    // The generated signing key is on the volume, so a token from the first container still works.
    expect(await propertyTotal(current.base, token)).toBeGreaterThan(2);
    const minted = await exec(current.name, [
      ...['bun', 'run', '--silent', 'token', '--', '--email', 'ops@example.com'],
      ...['--aud', 'employee', '--ttl', '1h'],
    ]);
    expect(minted.code).toBe(0);
    expect(await stopAndRemove(current.name)).toBe('0');
  });

  test('restore, with the service stopped, from a one-off container on the volume', async () => {
    const restored = await podman([
      ...['run', '--rm', '-v', `${volume}:/data`, image],
      ...['bun', 'run', 'restore', '--', backupPath],
    ]);
    expect([restored.code, restored.stderr]).toEqual([0, expect.not.stringContaining('refused')]);
    current = await ct.start('restored', ['-v', `${volume}:/data`]);
    expect(await readStatus(current.base, token, kept)).toBe(200);
    expect(await readStatus(current.base, token, afterBackup)).toBe(404);
  });

  test('the HEALTHCHECK reports unhealthy once the database file is gone, healthy once it is back', async () => {
    await ok(['podman', 'exec', current.name, 'mv', '/data/app.db', '/data/app.db.away']);
    expect((await fetch(`${current.base}/health`)).status).toBe(503);
    // Unhealthy after the image's three retries, counted once its 10 s start period is over.
    let status = '';
    for (let attempt = 0; attempt < 60 && status !== 'unhealthy'; attempt++) {
      expect((await podman(['healthcheck', 'run', current.name])).code).not.toBe(0);
      status = await healthStatus(current.name);
      if (status !== 'unhealthy') await Bun.sleep(500);
    }
    expect(status).toBe('unhealthy');
    await ok(['podman', 'exec', current.name, 'mv', '/data/app.db.away', '/data/app.db']);
    expect((await podman(['healthcheck', 'run', current.name])).code).toBe(0);
    expect(await healthStatus(current.name)).toBe('healthy');
    expect(await stopAndRemove(current.name)).toBe('0');
  });

  test('a read-only root file system, /data the only writable place: serves, writes, operator commands', async () => {
    current = await ct.start('read-only', [
      '--read-only',
      '--read-only-tmpfs=false',
      '-v',
      `${volume}:/data`,
    ]);
    const touched = await exec(current.name, ['touch', '/app/written', '/tmp/written']);
    expect(touched.stderr).toContain('Read-only file system');
    expect(
      await readStatus(
        current.base,
        token,
        await createProperty(current.base, token, 'Calle Fija 2'),
      ),
    ).toBe(200);
    const created = await exec(
      current.name,
      ['bun', 'run', 'user:create', '--', '--email', 'second@example.com', '--role', 'employee'],
      'another long password\n',
    );
    expect(created.code).toBe(0);
    expect((await exec(current.name, ['bun', 'run', 'backup'])).code).toBe(0);
    expect((await podman(['healthcheck', 'run', current.name])).code).toBe(0);
    expect(await stopAndRemove(current.name)).toBe('0');
  });
});

describe('compose.yaml', () => {
  test('starts with podman-compose: the volume, the port, the health check, the restart policy, the .env settings', async () => {
    const project = join(work, 'compose');
    mkdirSync(project);
    writeFileSync(join(project, 'compose.yaml'), readFileSync(join(root, 'compose.yaml')));
    const port = freePort();
    const secret = 'compose-suite-secret-0123456789-abcdefghij';
    writeFileSync(
      join(project, '.env'),
      `JWT_SECRET=${secret}\nPUBLIC_ORIGIN=https://listings.example.test\nLISTEN_PORT=${port}\n`,
    );
    const compose = (args: string[]) =>
      ok(['podman-compose', '-p', `listings-ct-${suffix}`, ...args], { cwd: project });
    const name = `listings-ct-${suffix}_listings_1`;
    ct.containers.push(name);
    ct.volumes.push(`listings-ct-${suffix}_listings-data`);
    const started = performance.now();
    await compose(['up', '-d']);
    const base = `http://127.0.0.1:${port}`;
    expect(await untilHealthy(base, name)).toBeNumber();
    figures['compose up to healthy (s)'] = secondsSince(started);
    const settings = await ok([
      ...['podman', 'inspect', '--format'],
      '{{.HostConfig.RestartPolicy.Name}} {{.HostConfig.ReadonlyRootfs}} {{range .Mounts}}{{.Name}}:{{.Destination}}{{end}}',
      name,
    ]);
    expect(settings.trim()).toBe(`unless-stopped true listings-ct-${suffix}_listings-data:/data`);
    const env = await ok(['podman', 'exec', name, 'printenv', 'PUBLIC_ORIGIN', 'JWT_SECRET']);
    expect(env).toBe(`https://listings.example.test\n${secret}\n`);
    expect((await podman(['healthcheck', 'run', name])).code).toBe(0);
    // A token signed with the .env's JWT_SECRET is accepted.
    const { TokenService } = await import('@/auth/tokens');
    const token = await new TokenService(secret).issue('compose-employee', 'employee', 600);
    expect(
      await readStatus(base, token, await createProperty(base, token, 'Calle Compose 3')),
    ).toBe(200);
    // The restart policy: the service stopping on its own (SIGTERM from inside) is started again.
    await podman(['exec', name, 'sh', '-c', 'kill -TERM 1']);
    let restarts = '0';
    for (let attempt = 0; attempt < 300 && restarts === '0'; attempt++) {
      restarts = (await ok(['podman', 'inspect', '--format', '{{.RestartCount}}', name])).trim();
      if (restarts === '0') await Bun.sleep(100);
    }
    expect(restarts).toBe('1');
    expect(await untilHealthy(base, name)).toBeNumber();
    await compose(['down']);
  });
});

describe('compose.scale-out.yaml', () => {
  test('two instances on PostgreSQL and Redis behind a proxy, as podman-compose reads it', async () => {
    // Its PostgreSQL, Redis and Caddy images come from the public registry, out of reach here:
    // the file is read by podman-compose (--dry-run prints the podman commands) and checked.
    const project = join(work, 'scale-out');
    mkdirSync(project);
    writeFileSync(
      join(project, 'compose.yaml'),
      readFileSync(join(root, 'compose.scale-out.yaml')),
    );
    writeFileSync(
      join(project, '.env'),
      'JWT_SECRET=scale-out-secret-0123456789-abcdefghijk\nPUBLIC_ORIGIN=https://listings.example.test\nPOSTGRES_PASSWORD=pw\n',
    );
    const dry = await ok(
      ['podman-compose', '-p', `listings-so-${suffix}`, '--dry-run', 'up', '-d'],
      {
        cwd: project,
      },
    );
    const runs = dry.split('\n').filter((line) => line.startsWith('podman run '));
    const named = (service: string) =>
      runs.filter((line) => line.includes(`--network-alias ${service} `));
    expect(runs).toHaveLength(5);
    for (const instance of ['listings-1', 'listings-2']) {
      const [line = ''] = named(instance);
      expect(line).toContain('-e DATABASE_URL=postgres://listings:pw@postgres:5432/listings');
      expect(line).toContain('-e REDIS_URL=redis://redis:6379');
      expect(line).toContain('-e JWT_SECRET=scale-out-secret-0123456789-abcdefghijk');
      expect(line).toContain('--read-only');
      expect(line).toContain('--healthcheck-command');
      expect(line).toMatch(/ listings-service$/);
    }
    expect(named('postgres')[0]).toContain('postgres:16');
    expect(named('redis')[0]).toContain('redis:7');
    expect(named('proxy')[0]).toContain('--to listings-1:3000 --to listings-2:3000');
    expect(named('proxy')[0]).toContain('-p 127.0.0.1:3000:80');
    // --dry-run still creates the project's network and volume.
    await podman(['volume', 'rm', '-f', `listings-so-${suffix}_postgres-data`]);
    await podman(['network', 'rm', '-f', `listings-so-${suffix}_default`]);
  });
});

describe('an upgrade from the previous release', () => {
  test(`the volume of ${previousRelease}'s image opens in this image with its rows`, async () => {
    const source = join(work, 'previous');
    mkdirSync(source);
    await ok(['sh', '-c', `git archive ${previousRelease} | tar -x -C "${source}"`]);
    let started = performance.now();
    await ok(['podman', 'build', ...buildFlags(work), '-t', previousImage, '.'], { cwd: source });
    figures['previous release build (s)'] = secondsSince(started);

    const secret = 'upgrade-suite-secret-0123456789-abcdefgh';
    const { TokenService } = await import('@/auth/tokens');
    const token = await new TokenService(secret).issue('upgrade-employee', 'employee', 600);
    const data = `listings-ct-upgrade-${suffix}`;
    ct.volumes.push(data);
    await ok(['podman', 'volume', 'create', data]);
    const options = ['-v', `${data}:/data`, '-e', `JWT_SECRET=${secret}`];
    const previous = await ct.start('previous', options, previousImage);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await createProperty(previous.base, token, `Calle Antigua ${i}`));
    const page = await fetch(`${previous.base}/content/static-pages/upgrade`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        language: 'en',
        title: 'Upgrade',
        metaTitle: 'Upgrade',
        metaDescription: 'Written by the previous release.',
        category: 'company',
        group: 'footer',
        published: true,
        content: '# Upgrade',
      }),
    });
    expect([200, 201]).toContain(page.status);
    const total = await propertyTotal(previous.base, token);
    // What this change fixes: the previous image's operator commands could not load.
    const broken = await exec(previous.name, [
      'bun',
      'run',
      'token',
      '--',
      '--sub',
      'x',
      '--aud',
      'employee',
    ]);
    figures['previous release: bun run token'] =
      broken.code === 0
        ? 'works'
        : (broken.stderr.split('\n').find((line) => line.startsWith('error:')) ?? '');
    expect(await stopAndRemove(previous.name)).toBe('0');

    started = performance.now();
    const upgraded = await ct.start('upgraded', options);
    figures['upgrade: create and start to healthy (s)'] = secondsSince(started);
    for (const id of ids) expect(await readStatus(upgraded.base, token, id)).toBe(200);
    expect(await propertyTotal(upgraded.base, token)).toBe(total);
    expect((await fetch(`${upgraded.base}/content/static-pages/upgrade?language=en`)).status).toBe(
      200,
    );
    expect(
      (
        await exec(upgraded.name, [
          'bun',
          'run',
          '--silent',
          'token',
          '--',
          '--sub',
          'x',
          '--aud',
          'employee',
        ])
      ).code,
    ).toBe(0);
    expect(await stopAndRemove(upgraded.name)).toBe('0');
  });
});
