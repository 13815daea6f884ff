/**
 * The real server with its database on a small file system the test mounts
 * (needs root; skipped with the reason otherwise):
 *
 * - full: a 12 MiB tmpfs, filled by another file; every refused write is a
 *   507 with the documented body, reads answer, /health fails and /metrics
 *   shows it, the log warns once; the file deleted, writes succeed again
 *   with no restart and every acknowledged write is there.
 * - read-only: a 16 MiB ext4 image on a loop device mounted with
 *   `errors=remount-ro`, turned read-only under the running server through
 *   the kernel's own error path (`/sys/fs/ext4/<dev>/trigger_fs_error`, what
 *   a failing disk does). A tmpfs cannot be remounted read-only while the
 *   server holds the database open for writing (EBUSY). An ext4 turned
 *   read-only by an error stays so until it is unmounted: the server is
 *   stopped, the file system checked and mounted again, and the restarted
 *   server has every acknowledged write (synced before the error: an ext4
 *   error drops unwritten pages as a power cut does).
 */
import { afterAll, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { spawnService } from '../support/service-process';
import { describeOnSmallDisk, smallDisk } from '../support/small-disk';
import { employeeToken, JWT_SECRET } from './support';

const PROBLEM_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html';
const FULL =
  'Storage is full: the change was not stored and nothing of it was written; retry after Retry-After seconds';
const READ_ONLY =
  "Storage is read-only: the database's file system refuses writes, so the change was not stored and nothing of it was written; retry after Retry-After seconds";

const property = (i: number) => ({
  type: 'apartment',
  ownerId: 'owner-1',
  location: {
    addressLine1: `Disk street ${i}`,
    city: 'Madrid',
    cityId: 'madrid',
    postalCode: '28013',
    latitude: 40.4168,
    longitude: -3.7038,
  },
});

/** A client of one started server, as an employee. */
async function clientOf(url: string) {
  const auth = { authorization: `Bearer ${await employeeToken()}` };
  return {
    create: (i: number) =>
      fetch(`${url}/listings/properties`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(property(i)),
      }),
    read: (id: string) => fetch(`${url}/listings/properties/${id}`, { headers: auth }),
    health: () => fetch(`${url}/health`),
    metrics: () => fetch(`${url}/metrics`, { headers: auth }).then((res) => res.text()),
  };
}
type Client = Awaited<ReturnType<typeof clientOf>>;

/** Polls `/health` (the disk is read every 2 s) until `check` holds, for at most 20 s. */
async function healthUntil(
  client: Client,
  check: (status: number, body: Record<string, unknown>) => boolean,
) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await client.health();
    const body = (await res.json()) as Record<string, unknown>;
    if (check(res.status, body)) return { status: res.status, body };
    if (Date.now() > deadline)
      throw new Error(`/health stayed ${res.status} ${JSON.stringify(body)}`);
    await Bun.sleep(200);
  }
}

/** Creates until `refusals` were refused (at most `attempts`); each refusal checked against `detail`. */
async function createUntilRefused(
  client: Client,
  from: number,
  refusals: number,
  detail: string,
  onRefused?: () => void,
) {
  const acknowledged: string[] = [];
  let refused = 0;
  for (let i = from; i < from + 2000 && refused < refusals; i++) {
    const res = await client.create(i);
    if (res.status === 201) {
      acknowledged.push(res.headers.get('location')!.split('/').pop()!);
      continue;
    }
    refused++;
    expect(res.status).toBe(507);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await res.json()).toEqual({
      type: PROBLEM_TYPE,
      title: 'Insufficient Storage',
      status: 507,
      detail,
    });
    onRefused?.();
  }
  expect(refused).toBe(refusals);
  return acknowledged;
}

const logLines = (log: string) =>
  log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string });

describeOnSmallDisk(
  'a full disk under the real server',
  () => {
    const disk = smallDisk(12);
    afterAll(() => disk.unmount());

    test('refused writes are 507, reads answer, /health and /metrics show it, one warning; freed: back by itself', async () => {
      const service = await spawnService({
        DATABASE_PATH: join(disk.dir, 'app.db'),
        BACKUP_DIR: join(disk.dir, 'backups'),
        DISK_FREE_THRESHOLD_MB: '2',
        JWT_SECRET,
        LOG_FORMAT: 'json',
        RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
      });
      const client = await clientOf(service.url);
      try {
        const before = await createUntilRefused(client, 0, 0, FULL);
        expect(before).toEqual([]);
        await healthUntil(client, (status, body) => status === 200 && body.status === 'ok');

        disk.fill(1024 * 1024);
        const low = await healthUntil(client, (_, body) => body.status === 'degraded');
        expect(low.status).toBe(200);
        expect((low.body.disk as { state: string }).state).toBe('low');

        // Once a write is refused, not a byte is left: nothing a rollback gave back lets one slip in.
        const acknowledged = await createUntilRefused(client, 0, 30, FULL, () => disk.fill(0));
        expect(acknowledged.length).toBeGreaterThan(0);
        for (const id of acknowledged.slice(-5)) expect((await client.read(id)).status).toBe(200);

        const failing = await client.health();
        expect(failing.status).toBe(503);
        expect(((await failing.json()) as { detail: string }).detail).toBe(
          "Writes refused: the database's storage is full; free space or make it writable (docs/operations.md)",
        );
        const metrics = await client.metrics();
        expect(metrics).toContain('listings_disk_writes_refused 1\n');
        expect(metrics).toMatch(/listings_disk_refused_writes_total (3\d|[4-9]\d|\d{3})\n/);

        disk.free();
        const back = await healthUntil(
          client,
          (status, body) => status === 200 && body.status === 'ok',
        );
        expect((back.body.disk as { refusedWrites: number }).refusedWrites).toBeGreaterThanOrEqual(
          30,
        );
        const after = await createUntilRefused(client, 5000, 0, FULL);
        const created = await client.create(9999);
        expect(created.status).toBe(201);
        for (const id of [...acknowledged, ...after])
          expect((await client.read(id)).status).toBe(200);
      } finally {
        service.proc.kill('SIGTERM');
      }
      const lines = logLines(await service.rest());
      const messages = (msg: string) => lines.filter((line) => line.msg === msg).length;
      expect(messages('disk space low')).toBe(1);
      expect(messages('writes refused: storage full or read-only')).toBe(1);
      expect(messages('disk space recovered')).toBe(1);
      expect(messages('unhandled error')).toBe(0);
    }, 120_000);
  },
  // The server it starts is on SQLite whatever TEST_DATABASE says.
  { postgres: true },
);

const run = (...command: string[]) => {
  const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
};

/** `umount dir`, tried again while the mount is busy, 50 tries at most. */
async function umountWhenFree(dir: string) {
  for (let attempt = 1; ; attempt++) {
    const result = spawnSync('umount', [dir], { encoding: 'utf8' });
    if (result.status === 0) return;
    if (attempt === 50 || !result.stderr.includes('busy')) {
      throw new Error(`umount ${dir}: ${result.stderr}`);
    }
    await Bun.sleep(100);
  }
}

describeOnSmallDisk(
  'a file system turned read-only under the real server',
  () => {
    const work = mkdtempSync(join(tmpdir(), 'listings-ext4-'));
    const image = join(work, 'disk.img');
    const dir = join(work, 'mnt');
    const mount = () => run('mount', '-o', 'loop,errors=remount-ro', image, dir);
    afterAll(() => {
      spawnSync('umount', ['-l', dir]);
      rmSync(work, { recursive: true, force: true });
    });

    test('refused writes are 507 read-only, reads answer, /health fails; remounted: every acknowledged write there', async () => {
      writeFileSync(image, Buffer.alloc(0));
      run('truncate', '-s', '16M', image);
      run('mkfs.ext4', '-q', '-F', '-O', '^has_journal', image);
      run('mkdir', '-p', dir);
      mount();
      const env = {
        DATABASE_PATH: join(dir, 'app.db'),
        BACKUP_DIR: join(dir, 'backups'),
        DISK_FREE_THRESHOLD_MB: '1',
        JWT_SECRET,
        LOG_FORMAT: 'json',
      };
      const service = await spawnService(env);
      const client = await clientOf(service.url);
      let acknowledged: string[] = [];
      try {
        acknowledged = await createUntilRefused(client, 0, 0, READ_ONLY);
        for (let i = 0; i < 10; i++) {
          const res = await client.create(i);
          expect(res.status).toBe(201);
          acknowledged.push(res.headers.get('location')!.split('/').pop()!);
        }
        // synchronous=NORMAL: a commit is on disk once the OS wrote it, and an ext4
        // that errors drops what it had not written, as a power cut would
        // (docs/operations.md). Written first, so what is tested is the service's part.
        run('sync', '-f', join(dir, 'app.db'));
        const device = basename(run('findmnt', '-no', 'SOURCE', dir));
        writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, 'disk test');
        await createUntilRefused(client, 100, 5, READ_ONLY);
        for (const id of acknowledged) expect((await client.read(id)).status).toBe(200);
        const failing = await client.health();
        expect(failing.status).toBe(503);
        expect(((await failing.json()) as { detail: string }).detail).toBe(
          "Writes refused: the database's storage is read-only; free space or make it writable (docs/operations.md)",
        );
        expect(await client.metrics()).toContain('listings_disk_writes_refused 1\n');
      } finally {
        service.proc.kill('SIGTERM');
      }
      const lines = logLines(await service.rest());
      expect(
        lines.filter((line) => line.msg === 'writes refused: storage full or read-only'),
      ).toHaveLength(1);
      expect(lines.filter((line) => line.msg === 'unhandled error')).toHaveLength(0);

      // The server's files are closed once it has exited; a busy mount (a
      // probe of the new loop device by udev or blkid) lets go in a moment.
      await service.proc.exited;
      await umountWhenFree(dir);
      spawnSync('e2fsck', ['-fy', image]);
      mount();
      const restarted = await spawnService(env);
      const again = await clientOf(restarted.url);
      try {
        await healthUntil(again, (status) => status === 200);
        for (const id of acknowledged) expect((await again.read(id)).status).toBe(200);
        expect((await again.create(500)).status).toBe(201);
      } finally {
        restarted.proc.kill('SIGTERM');
        await restarted.rest();
      }
    }, 120_000);
  },
  // The server it starts is on SQLite whatever TEST_DATABASE says.
  { postgres: true },
);
