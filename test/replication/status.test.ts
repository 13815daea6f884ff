import { afterAll, expect } from 'bun:test';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { litestreamFolder, readingOf } from '@/replication';
import { createTestApp, manualClock } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';

const REPLICATION = 'REPLICA_URL replicates the SQLite file only';

interface Figures {
  replicaOffset: number;
  /** The sizes of the shadow WAL files Litestream keeps, from index 0; the last is the current one. */
  shadowFiles: number[];
  syncErrors?: number;
  replicaIndex?: number;
  /** Bytes Litestream has copied aside since it started; the files' sizes added up by default. */
  copied?: number;
}

/**
 * Litestream's figures as version 0.3.13 serves them, for one database and
 * one file replica, and its shadow WAL files beside the database.
 */
function litestreamText(db: string, figures: Figures) {
  const { replicaOffset, shadowFiles, syncErrors = 0, replicaIndex = 0 } = figures;
  const shadowSize = shadowFiles.reduce((total, size) => total + size, 0);
  const copied = figures.copied ?? shadowSize;
  const index = shadowFiles.length - 1;
  const folder = litestreamFolder(db);
  const generation = 'b5c7f0e2a1d34c68';
  const walFolder = join(folder, 'generations', generation, 'wal');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(walFolder, { recursive: true });
  writeFileSync(join(folder, 'generation'), `${generation}\n`);
  shadowFiles.forEach((size, n) => {
    writeFileSync(join(walFolder, `${n.toString(16).padStart(8, '0')}.wal`), Buffer.alloc(size));
  });
  const on = `db=${JSON.stringify(db)}`;
  return [
    '# TYPE litestream_db_size gauge',
    `litestream_db_size{${on}} 16384`,
    '# TYPE litestream_replica_wal_index gauge',
    `litestream_replica_wal_index{${on},name="file"} ${replicaIndex}`,
    '# TYPE litestream_replica_wal_offset gauge',
    `litestream_replica_wal_offset{${on},name="file"} ${replicaOffset}`,
    '# TYPE litestream_shadow_wal_index gauge',
    `litestream_shadow_wal_index{${on}} ${index}`,
    '# TYPE litestream_shadow_wal_size gauge',
    `litestream_shadow_wal_size{${on}} ${shadowSize}`,
    '# TYPE litestream_sync_count counter',
    `litestream_sync_count{${on}} 40`,
    '# TYPE litestream_total_wal_bytes counter',
    `litestream_total_wal_bytes{${on}} ${copied}`,
    '# TYPE litestream_sync_error_count counter',
    `litestream_sync_error_count{${on}} ${syncErrors}`,
    '',
  ].join('\n');
}

/** A stand-in for Litestream's metrics endpoint: real HTTP, the text the test sets (or a 500). */
let served: string | undefined;
const litestream = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () =>
    served === undefined ? new Response('down', { status: 500 }) : new Response(served),
});
afterAll(() => litestream.stop(true));

function replicatedApp() {
  const clock = manualClock();
  const ctx = createTestApp({
    clock,
    env: { REPLICA_URL: 'file:///mnt/replica/listings', REPLICA_MAX_LAG: '60s' },
    replicationMetricsUrl: `http://127.0.0.1:${litestream.port}/metrics`,
  });
  const db = resolve(ctx.config.databasePath);
  const admin = ctx.tokenFor('employee-1', 'employee');
  const health = async () => (await ctx.request<Record<string, unknown>>('GET', '/health')).body;
  const events = async () =>
    (await ctx.deps.stores.audit.searchAudit({})).events
      .filter(({ action }) => action.startsWith('replication.'))
      .map(({ action, target }) => ({ action, target }));
  const metric = async (name: string) => {
    const text = (await ctx.request('GET', '/metrics', { token: await admin })).text;
    return new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  };
  return { ctx, clock, db, health, events, metric, poll: () => ctx.deps.replication!.poll() };
}

sqliteOnly.test(
  REPLICATION,
  'figures of another database on the port are not read as this one',
  () => {
    const { db } = replicatedApp();
    const text = litestreamText(db, { replicaOffset: 10, shadowFiles: [30] });
    expect(readingOf(text, db)).toEqual({
      ...{ replicaIndex: 0, replicaOffset: 10, shadowIndex: 0, copiedBytes: 30, syncErrors: 0 },
    });
    expect(readingOf(text, '/other/app.db')).toBeUndefined();
  },
);

sqliteOnly.test(
  REPLICATION,
  'the last sync follows the shipped position; no sync for REPLICA_MAX_LAG with writes waiting turns /health degraded, with one audit event each way',
  async () => {
    const { ctx, clock, db, health, events, metric, poll } = replicatedApp();
    // Caught up at the first reading: synced now.
    served = litestreamText(db, { replicaOffset: 4096, shadowFiles: [4096] });
    await poll();
    const start = clock();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: {
        replica: 'file:///mnt/replica/listings',
        state: 'ok',
        lastSyncAt: new Date(start).toISOString(),
        lastSyncAgeSeconds: 0,
        lagBytes: 0,
        lagSeconds: 0,
        syncErrors: 0,
        lastError: null,
      },
    });

    // Writes wait, the replica advances: the last sync moves on.
    clock.advance(5000);
    served = litestreamText(db, { replicaOffset: 8192, shadowFiles: [12_288] });
    await poll();
    // The replica holds all that was copied at the first reading, not what came since.
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: {
        lastSyncAt: new Date(start + 5000).toISOString(),
        lagBytes: 4096,
        lagSeconds: 5,
      },
    });

    // The replica stops advancing while writes wait: ok until the maximum lag, then degraded.
    served = litestreamText(db, { replicaOffset: 8192, shadowFiles: [20_480], syncErrors: 2 });
    clock.advance(59_000);
    await poll();
    expect(await health()).toMatchObject({ status: 'ok', replication: { state: 'ok' } });
    clock.advance(1000);
    await poll();
    clock.advance(5000);
    await poll();
    const degraded = await health();
    expect(degraded).toMatchObject({
      status: 'degraded',
      database: 'ok',
      replication: {
        state: 'degraded',
        lastSyncAt: new Date(start + 5000).toISOString(),
        lastSyncAgeSeconds: 65,
        lagBytes: 12_288,
        lagSeconds: 70,
        syncErrors: 2,
      },
    });
    expect(String((degraded.replication as { lastError: unknown }).lastError)).toContain(
      'failed 2 sync(s)',
    );
    // Degraded is still 200: the instance serves.
    expect((await ctx.request('GET', '/health')).status).toBe(200);
    expect(await metric('listings_replication_last_sync_age_seconds')).toBe('65');
    expect(await metric('listings_replication_lag_bytes')).toBe('12288');
    expect(await metric('listings_replication_lag_seconds')).toBe('70');
    expect(await metric('listings_replication_sync_errors_total')).toBe('2');
    // Polls while degraded add no event.
    expect(await events()).toEqual([
      { action: 'replication.degraded', target: 'file:///mnt/replica/listings' },
    ]);

    // The replica catches up: ok again, one more event.
    clock.advance(5000);
    served = litestreamText(db, { replicaOffset: 20_480, shadowFiles: [20_480], syncErrors: 2 });
    await poll();
    await poll();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: { state: 'ok', lagBytes: 0, lagSeconds: 0, lastSyncAgeSeconds: 0 },
    });
    expect((await events()).map(({ action }) => action).sort()).toEqual([
      'replication.degraded',
      'replication.recovered',
    ]);
  },
);

sqliteOnly.test(
  REPLICATION,
  'the lag is what the replica has not received: the rest of its shadow WAL file and the later ones, not every file Litestream keeps',
  async () => {
    const { db, health, metric, poll } = replicatedApp();
    // Files 0 to 2 kept (19,000 bytes, what litestream_shadow_wal_size says); the replica is 2,000 bytes into file 1.
    served = litestreamText(db, {
      replicaIndex: 1,
      replicaOffset: 2000,
      shadowFiles: [10_000, 6000, 3000],
    });
    await poll();
    expect(await health()).toMatchObject({ replication: { lagBytes: 4000 + 3000 } });
    expect(await metric('listings_replication_lag_bytes')).toBe('7000');
    // Caught up in its last file, older files still kept: nothing waits.
    served = litestreamText(db, {
      replicaIndex: 2,
      replicaOffset: 3000,
      shadowFiles: [10_000, 6000, 3000],
    });
    await poll();
    expect(await health()).toMatchObject({ replication: { lagBytes: 0, lagSeconds: 0 } });
  },
);

sqliteOnly.test(
  REPLICATION,
  'no writes waiting: a quiet replica stays ok however long it has not shipped',
  async () => {
    const { clock, db, health, events, poll } = replicatedApp();
    served = litestreamText(db, { replicaOffset: 4096, shadowFiles: [4096] });
    await poll();
    clock.advance(10 * 60_000);
    await poll();
    expect(await health()).toMatchObject({ status: 'ok', replication: { state: 'ok' } });
    expect(await events()).toEqual([]);
  },
);

sqliteOnly.test(
  REPLICATION,
  "Litestream's figures unreadable for REPLICA_MAX_LAG: degraded, with the reason",
  async () => {
    const { clock, health, events, metric, poll } = replicatedApp();
    served = undefined;
    await poll();
    expect(await health()).toMatchObject({
      status: 'ok',
      replication: { lastSyncAt: null, lagBytes: null, lagSeconds: null },
    });
    // Before any figure the lag is unknown: no sample, the family stays.
    expect(await metric('listings_replication_lag_bytes')).toBeUndefined();
    expect(await metric('listings_replication_lag_seconds')).toBeUndefined();
    clock.advance(60_000);
    await poll();
    const body = await health();
    expect(body).toMatchObject({ status: 'degraded', replication: { state: 'degraded' } });
    expect(String((body.replication as { lastError: unknown }).lastError)).toContain(
      "Litestream's metrics answered 500",
    );
    expect((await events()).map(({ action }) => action)).toEqual(['replication.degraded']);
  },
);

sqliteOnly.test(REPLICATION, 'without Litestream, /health has no replication', async () => {
  const ctx = createTestApp({ env: { REPLICA_URL: 'file:///mnt/replica/listings' } });
  const body = (await ctx.request<Record<string, unknown>>('GET', '/health')).body;
  expect(body.status).toBe('ok');
  expect(body).not.toHaveProperty('replication');
});
