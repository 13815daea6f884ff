import { describe, expect, test } from 'bun:test';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReplicaSettings } from '@/config';
import {
  copyFromReplica,
  findLitestream,
  LITESTREAM_MISSING,
  renderLitestreamConfig,
  runUnderLitestream,
  SFTP_RESTORE_HINT,
  writeLitestreamConfig,
} from '@/replication';
import { tempDir } from '../support/harness';

const replicaOf = (url: string, more: Partial<ReplicaSettings> = {}): ReplicaSettings => ({
  url,
  syncInterval: '1s',
  retention: '72h',
  // Not Litestream's default port: a test beside a running service would miss its metrics.
  metricsPort: 19_090,
  maxLagMs: 60_000,
  ...more,
});

const litestream = findLitestream();

/** What Litestream itself reads from the file: `litestream databases` parses it without connecting. */
async function databasesListed(config: string): Promise<string> {
  const proc = Bun.spawn([litestream!, 'databases', '-config', config, '-no-expand-env'], {
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect([code, err]).toEqual([0, '']);
  return out;
}

describe('litestream.yml, rendered from the settings', () => {
  test('a file replica: the paths, interval, retention and checkpoint thresholds', () => {
    const text = renderLitestreamConfig('/data/app.db', replicaOf('file:///mnt/replica/listings'));
    expect(text).toContain('- path: "/data/app.db"');
    expect(text).toContain('type: file');
    expect(text).toContain('path: "/mnt/replica/listings"');
    expect(text).toContain('sync-interval: 1s');
    expect(text).toContain('retention: 72h');
    expect(text).toContain('max-checkpoint-page-count: 10000');
    expect(text).toContain('monitor-interval: 250ms');
  });

  test('an sftp replica: host with its port (22 unless given), user, path, key', () => {
    const text = renderLitestreamConfig(
      '/data/app.db',
      replicaOf('sftp://backup@nas.lan/srv/listings', { sftpKeyPath: '/run/secrets/key' }),
    );
    expect(text).toContain('host: "nas.lan:22"');
    expect(text).toContain('user: "backup"');
    expect(text).toContain('path: "/srv/listings"');
    expect(text).toContain('key-path: "/run/secrets/key"');
  });

  test.each([
    ['sftp://backup@127.0.0.1:2222/srv/listings', '127.0.0.1:2222'],
    ['sftp://backup@[::1]/srv/listings', '[::1]:22'],
    ['sftp://backup@[::1]:2222/srv/listings', '[::1]:2222'],
  ])('an sftp replica at %s: Litestream dials %s', (url, host) => {
    const text = renderLitestreamConfig('/data/app.db', replicaOf(url, { sftpKeyPath: '/k' }));
    expect(text).toContain(`host: "${host}"`);
    expect(text).toContain('path: "/srv/listings"');
  });

  test('an s3 replica: bucket and path; an endpoint brings path-style requests; never a key', () => {
    const aws = renderLitestreamConfig('/data/app.db', replicaOf('s3://my-bucket/listings/db'));
    expect(aws).toContain('bucket: "my-bucket"');
    expect(aws).toContain('path: "listings/db"');
    expect(aws).not.toContain('endpoint');
    const minio = renderLitestreamConfig(
      '/data/app.db',
      replicaOf('s3://b/x', { s3Endpoint: 'http://127.0.0.1:9000' }),
    );
    expect(minio).toContain('endpoint: "http://127.0.0.1:9000"');
    expect(minio).toContain('force-path-style: true');
    expect(`${aws}${minio}`).not.toMatch(/access-key|secret/);
  });

  test.each([
    ['file:///mnt/replica/a b', 'file'],
    ['sftp://u@host:2222/srv/x', 'sftp'],
    ['s3://bucket/path', 's3'],
  ])('Litestream itself reads the file for %s', async (url, shown) => {
    const dir = tempDir();
    const key = join(dir, 'key');
    writeFileSync(key, 'key');
    const db = join(dir, 'a $dollar', 'app.db');
    const config = join(dir, 'litestream.yml');
    writeFileSync(
      config,
      renderLitestreamConfig(
        db,
        replicaOf(url, url.startsWith('sftp') ? { sftpKeyPath: key } : {}),
      ),
    );
    const listed = await databasesListed(config);
    expect(listed).toContain(db);
    expect(listed).toContain(shown);
  });

  test('written beside the database, readable by its owner only', () => {
    const dir = tempDir();
    const path = writeLitestreamConfig(join(dir, 'app.db'), replicaOf('file:///mnt/r'));
    expect(path).toBe(join(dir, 'app.db.litestream.yml'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

/** runUnderLitestream on a missing database with `findBinary`: its exit code and the lines it printed to stderr. */
async function startWith(url: string, findBinary: () => string | undefined) {
  const dir = tempDir();
  const errors: string[] = [];
  const error = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    const code = await runUnderLitestream(
      join(dir, 'app.db'),
      replicaOf(url, url.startsWith('sftp') ? { sftpKeyPath: join(dir, 'key') } : {}),
      { command: ['false'], findBinary },
    );
    return { code, errors };
  } finally {
    console.error = error;
  }
}

describe('starting under Litestream', () => {
  test('the binary ships with the npm package for this platform', () => {
    expect(litestream).toContain('@flydotio/litestream-');
  });

  test('where the binary is missing: one line saying how to install it, exit code 1, nothing started', async () => {
    const { code, errors } = await startWith('file:///mnt/r', () => undefined);
    expect(code).toBe(1);
    expect(errors).toEqual([LITESTREAM_MISSING]);
    expect(LITESTREAM_MISSING).toContain('npm install');
  });

  test('a failed restore from an sftp replica: one line that names the cut-short WAL segment to delete', async () => {
    // `false restore …`: a restore that fails, as Litestream's does on a truncated segment.
    const failing = () => Bun.which('false') ?? undefined;
    const sftp = await startWith('sftp://backup@nas.lan/srv/listings', failing);
    expect(sftp.code).toBe(1);
    expect(sftp.errors).toEqual([
      `litestream restore from sftp://backup@nas.lan/srv/listings failed (exit code 1); nothing was started${SFTP_RESTORE_HINT}`,
    ]);
    expect(SFTP_RESTORE_HINT).toContain('docs/operations.md');
    const file = await startWith('file:///mnt/r', failing);
    expect(file.errors).toEqual([
      'litestream restore from file:///mnt/r failed (exit code 1); nothing was started',
    ]);
  });

  test('a failed copy from an sftp replica (restore --from-replica): the same hint in its problem', async () => {
    const dir = tempDir();
    const copy = await copyFromReplica(
      join(dir, 'app.db'),
      replicaOf('sftp://backup@nas.lan/srv/listings', { sftpKeyPath: join(dir, 'key') }),
      { findBinary: () => Bun.which('false') ?? undefined },
    );
    expect(copy).toEqual({
      problem: `litestream restore from sftp://backup@nas.lan/srv/listings failed${SFTP_RESTORE_HINT}`,
    });
  });
});
