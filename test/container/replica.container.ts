import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/harness';
import { ok, podman, root, secondsSince } from './podman';
import {
  ContainerRun,
  createProperty,
  exec,
  expectExitCode,
  image,
  mintToken,
  propertyTotal,
  readStatus,
  type Started,
  suffix,
} from './service';

/**
 * Replication in the image (docs/container.md, A replica volume): the
 * server under `litestream replicate` with `REPLICA_URL=file:///replica` on
 * a second volume; the data volume lost after a hard kill; a new container
 * on an empty data volume restores every write from the replica. Runs after
 * image.container.ts, which builds the image (scripts/test-container.sh).
 */
const ct = new ContainerRun();
const { figures } = ct;
const replicaVolume = `listings-ct-replica-${suffix}`;
// Set explicitly: the generated signing key file is on the data volume, not in the replica.
const secret = 'replica-suite-secret-0123456789-abcdefgh';
const replicated = (dataVolume: string) => [
  ...['-v', `${dataVolume}:/data`, '-v', `${replicaVolume}:/replica`],
  ...['-e', 'REPLICA_URL=file:///replica', '-e', `JWT_SECRET=${secret}`],
];

interface Replication {
  replica: string;
  state: string;
  lastSyncAt: string | null;
  lagBytes: number | null;
  syncErrors: number;
  lastError: string | null;
}

async function healthOf(base: string) {
  const res = await fetch(`${base}/health`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; replication?: Replication },
  };
}

/**
 * Waits until /health shows Litestream caught up at a reading taken a
 * second or more after `after` (ms since the epoch): by then Litestream has
 * copied the writes aside (every 250 ms), so nothing left to ship means they
 * reached the replica. The seconds it took from `after`.
 */
async function untilReplicated(base: string, after: number) {
  const settled = after + 1000;
  for (let attempt = 0; attempt < 300; attempt++) {
    const { replication } = (await healthOf(base)).body;
    const syncedAt = Date.parse(replication?.lastSyncAt ?? '');
    if (syncedAt >= settled && replication?.lagBytes === 0) {
      return Math.round((syncedAt - after) / 100) / 10;
    }
    await Bun.sleep(200);
  }
  throw new Error('the replica did not catch up within a minute of the last write');
}

/** The rows each container should find: their ids, and the token that reads them. */
const written: string[] = [];
let token = '';

async function expectEveryWrite(base: string) {
  const statuses = await Promise.all(written.map((id) => readStatus(base, token, id)));
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
  expect(await propertyTotal(base, token)).toBe(written.length);
}

beforeAll(async () => {
  const exists = await podman(['image', 'exists', image]);
  if (exists.code !== 0) {
    throw new Error(`${image} is not built: run the suite (npm run test:container)`);
  }
  await ct.volume(replicaVolume);
});
afterAll(() => ct.removeAll());

describe('a replica volume', () => {
  let current: Started;

  test("the server runs under the litestream binary of the image's platform, replicating to /replica", async () => {
    current = await ct.start(
      'replicated',
      replicated(await ct.volume(`listings-ct-replica-data-1-${suffix}`)),
    );
    const found = await exec(current.name, [
      ...['bun', '-e'],
      'const { findLitestream } = await import("./src/replication/launch.ts"); const path = findLitestream(); console.log(process.platform + "-" + process.arch, path); console.log(Bun.spawnSync([path, "version"]).stdout.toString().trim());',
    ]);
    const [platform = '', version] = found.stdout.trim().split('\n');
    const [arch, path] = platform.split(' ');
    expect(path).toBe(`/app/node_modules/@flydotio/litestream-${arch}/litestream`);
    expect(version).toBe('v0.3.13');
    figures['litestream in the image'] = `${path} ${version}`;
    const logs = await ok(['podman', 'logs', current.name]);
    expect(logs).toContain(
      'msg="replicating to" name=file type=file sync-interval=500ms path=/replica',
    );
  });

  test('the data volume lost after a hard kill: a new container on an empty one restores every write from the replica', async () => {
    token = await mintToken(current.name, 'replica-employee');
    for (let i = 0; i < 25; i++) {
      written.push(await createProperty(current.base, token, `Calle Replicada ${i}`));
    }
    const lastWrite = Date.now();
    figures['replica caught up after the last write (s)'] = await untilReplicated(
      current.base,
      lastWrite,
    );

    await ok(['podman', 'kill', '--signal', 'KILL', current.name]);
    await ok(['podman', 'rm', current.name]);
    await ok(['podman', 'volume', 'rm', `listings-ct-replica-data-1-${suffix}`]);

    const emptyData = await ct.volume(`listings-ct-replica-data-2-${suffix}`);
    current = await ct.start('restored-from-replica', replicated(emptyData));
    const logs = await ok(['podman', 'logs', current.name]);
    expect(logs).toContain('msg="restoring snapshot"');
    await expectEveryWrite(current.base);
    figures['writes restored from the replica'] = `${written.length} of ${written.length}`;
    const health = await healthOf(current.base);
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    expect(health.body.replication).toMatchObject({
      replica: 'file:///replica',
      state: 'ok',
      syncErrors: 0,
      lastError: null,
    });
  });

  test('SIGTERM under replication: stops within the stop timeout, and the last sync ships the writes made just before', async () => {
    for (let i = 0; i < 5; i++) {
      written.push(await createProperty(current.base, token, `Calle Final ${i}`));
    }
    const started = performance.now();
    await ok(['podman', 'stop', '-t', '30', current.name]);
    figures['SIGTERM to exited, under replication (s)'] = secondsSince(started);
    // Past the 30 s podman sends SIGKILL, and the exit code would be 137.
    figures['exit code after SIGTERM, under replication'] = await expectExitCode(current.name, [
      '0',
      '143',
    ]);
    const logs = await ok(['podman', 'logs', current.name]);
    expect(logs).toContain('"msg":"shutting down","signal":"SIGTERM"');
    expect(logs).toContain('"msg":"stopped"');
    expect(logs).toContain('msg="litestream shut down"');
    await ok(['podman', 'rm', current.name]);

    const emptyData = await ct.volume(`listings-ct-replica-data-3-${suffix}`);
    current = await ct.start('after-sigterm', replicated(emptyData));
    await expectEveryWrite(current.base);
    await ok(['podman', 'stop', '-t', '30', current.name]);
    await expectExitCode(current.name, ['0', '143']);
  });

  test("compose.yaml's commented replica lines, uncommented, mount the replica volume and set REPLICA_URL", async () => {
    const project = tempDir('listings-compose-replica-');
    const lines = readFileSync(join(root, 'compose.yaml'), 'utf8').split('\n');
    const commented = /^(\s*)# ((?:- )?listings-replica:.*|REPLICA_URL: .*)$/;
    expect(lines.filter((line) => commented.test(line))).toHaveLength(3);
    writeFileSync(
      join(project, 'compose.yaml'),
      lines.map((line) => line.replace(commented, '$1$2')).join('\n'),
    );
    writeFileSync(
      join(project, '.env'),
      `JWT_SECRET=${secret}\nPUBLIC_ORIGIN=https://listings.example.test\n`,
    );
    const name = `listings-ct-replica-${suffix}`;
    // --dry-run prints the podman commands; it still creates the project's network and volumes.
    ct.volumes.push(`${name}_listings-data`, `${name}_listings-replica`);
    const dry = await ok(['podman-compose', '-p', name, '--dry-run', 'up', '-d'], {
      cwd: project,
    });
    await podman(['network', 'rm', '-f', `${name}_default`]);
    const run = dry.split('\n').find((line) => line.startsWith('podman run ')) ?? '';
    expect(run).toContain('-e REPLICA_URL=file:///replica');
    expect(run).toContain(`-v ${name}_listings-data:/data`);
    expect(run).toContain(`-v ${name}_listings-replica:/replica`);
  });
});
