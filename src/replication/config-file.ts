import { chmodSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ReplicaSettings } from '@/config';

/**
 * How Litestream watches the file (docs/operations.md, Replication with
 * Litestream). It copies new WAL frames aside every `monitorInterval` and
 * ships them every sync interval, so a write reaches the replica within both
 * (Litestream's own default of 1 s here would make a 1 s sync interval 2 s).
 * It checkpoints: PASSIVE after a sync once the WAL holds
 * `minCheckpointPages`, and on a timer; RESTART, which waits for readers,
 * only past `maxCheckpointPages`.
 */
export const LITESTREAM_DATABASE_SETTINGS = {
  monitorInterval: '250ms',
  minCheckpointPages: 1000,
  maxCheckpointPages: 10_000,
  checkpointInterval: '1m',
} as const;

/** A YAML scalar: JSON's double-quoted string is valid YAML, so no value can break the file. */
const scalar = (value: string) => JSON.stringify(value);

/** The replica's own lines of litestream.yml, from its URL and companions. */
function replicaLines(replica: ReplicaSettings): string[] {
  const url = new URL(replica.url);
  const path = decodeURIComponent(url.pathname);
  if (url.protocol === 'file:') return ['type: file', `path: ${scalar(path)}`];
  if (url.protocol === 'sftp:') {
    return [
      'type: sftp',
      `host: ${scalar(url.port ? `${url.hostname}:${url.port}` : `${url.hostname}:22`)}`,
      `user: ${scalar(decodeURIComponent(url.username))}`,
      `path: ${scalar(path)}`,
      `key-path: ${scalar(replica.sftpKeyPath ?? '')}`,
    ];
  }
  // s3: keys from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, which Litestream reads itself.
  const lines = [
    'type: s3',
    `bucket: ${scalar(url.hostname)}`,
    `path: ${scalar(path.replace(/^\/+/, ''))}`,
  ];
  if (replica.s3Endpoint) {
    // S3-compatible stores (MinIO above all) answer on paths, not bucket subdomains.
    lines.push(`endpoint: ${scalar(replica.s3Endpoint)}`, 'force-path-style: true');
  }
  return lines;
}

/**
 * litestream.yml for the database at `databasePath` and its one replica: the
 * only description of the replication, rendered from the settings at every
 * start (an edit by hand is overwritten). Holds no secret.
 */
export function renderLitestreamConfig(databasePath: string, replica: ReplicaSettings): string {
  const { monitorInterval, minCheckpointPages, maxCheckpointPages, checkpointInterval } =
    LITESTREAM_DATABASE_SETTINGS;
  return [
    '# Written by the listings service at each start from REPLICA_*; edits are overwritten.',
    // Its figures, read by the server for /health and /metrics; loopback only.
    `addr: ${scalar(metricsAddress(replica))}`,
    'dbs:',
    `  - path: ${scalar(databasePath)}`,
    `    monitor-interval: ${monitorInterval}`,
    `    min-checkpoint-page-count: ${minCheckpointPages}`,
    `    max-checkpoint-page-count: ${maxCheckpointPages}`,
    `    checkpoint-interval: ${checkpointInterval}`,
    '    replicas:',
    ...[
      ...replicaLines(replica),
      `sync-interval: ${replica.syncInterval}`,
      `retention: ${replica.retention}`,
    ].map((line, index) => `${index === 0 ? '      - ' : '        '}${line}`),
    '',
  ].join('\n');
}

/** Where Litestream serves its Prometheus metrics: loopback, REPLICA_METRICS_PORT. */
export const metricsAddress = (replica: ReplicaSettings) => `127.0.0.1:${replica.metricsPort}`;

/** Where litestream.yml is written: beside the database. */
export const litestreamConfigPath = (databasePath: string) =>
  join(dirname(databasePath), `${basename(databasePath)}.litestream.yml`);

/** Writes litestream.yml beside the database, readable by its owner only; answers its path. */
export function writeLitestreamConfig(databasePath: string, replica: ReplicaSettings): string {
  const path = litestreamConfigPath(databasePath);
  writeFileSync(path, renderLitestreamConfig(databasePath, replica), { mode: 0o600 });
  // A file left by an earlier start keeps its mode through writeFileSync.
  chmodSync(path, 0o600);
  return path;
}
